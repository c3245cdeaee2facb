import { Console, Effect } from "effect"
import { caPaths, inspectCa } from "../../proxy/tls/ca.js"
import { caTrusted, runStep, SYSTEM_NAMES, stepText, trustPlan, trustSystem } from "../../proxy/tls/trust.js"
import { stateDir } from "../../state/paths.js"
import { ExitCode, exitWith } from "../output.js"

/** How the CA comes to be: the supervisor makes (or replaces) it when the https proxy starts. */
const CREATE_HINT =
  "the supervisor creates it when the proxy starts with https: enable the proxy (`supervisor settings set proxy.enable true --global`), then run `supervisor proxy trust` again"

/** Why `proxy trust` cannot trust the CA now (none yet, or unusable), or undefined. */
const caProblem = (dir: string, ca: string): string | undefined => {
  const state = inspectCa(dir)
  if (state === "usable") return undefined
  return state === "missing"
    ? `there is no local CA yet: it will be ${ca}; ${CREATE_HINT}`
    : `the local CA ${ca} cannot be used: it ${state.why}; ${CREATE_HINT}`
}

const fail = (message: string) => Console.error(message).pipe(Effect.zipRight(exitWith(ExitCode.failure)))

/** `supervisor proxy trust` / `proxy untrust`: what they run is printed, as run or (--dry-run) to run. */
export const change = (action: "trust" | "untrust", dryRun: boolean) =>
  Effect.gen(function* () {
    const env = process.env
    const dir = stateDir(env)
    const ca = caPaths(dir).cert
    const system = trustSystem(env, process.platform)
    if (typeof system === "object") return yield* fail(`error: ${system.error}`)
    // only a CA that exists is trusted: none is made here, where the user asked only to trust
    const problem = action === "trust" ? caProblem(dir, ca) : undefined
    if (problem !== undefined && !dryRun) return yield* fail(`error: ${problem}`)
    if (problem !== undefined) yield* Console.log(`note: ${problem}`)
    if (system === undefined)
      return yield* fail(
        `error: supervisor does not know this system's trust store (it knows update-ca-certificates, update-ca-trust and the macOS keychain).\n` +
          `The CA is ${ca}: ${action === "trust" ? "add it to" : "remove it from"} your system's and browsers' trust stores by hand (docs/proxy.md, HTTPS and trust).`,
      )
    const trusted = caTrusted(dir, env, process.platform)
    if (action === "trust" && trusted === true)
      return yield* Console.log(
        `the local CA ${ca} is already trusted (${SYSTEM_NAMES[system]}): nothing to do`,
      )
    if (action === "untrust" && trusted === false && system !== "macos")
      return yield* Console.log(`the local CA is not in the ${SYSTEM_NAMES[system]}: nothing to do`)
    const plan = trustPlan(system, action, dir, env)
    if (dryRun) {
      yield* Console.log(`would run (${SYSTEM_NAMES[system]}${plan.needsRoot ? ", as root" : ""}):`)
      for (const s of plan.steps) yield* Console.log(`  ${stepText(s)}`)
      return
    }
    if (plan.needsRoot)
      return yield* fail(
        `error: ${action === "trust" ? "installing the CA into" : "removing the CA from"} the ${SYSTEM_NAMES[system]} needs root (${plan.store} is not writable by this user); supervisor never runs sudo itself. Run:\n` +
          plan.steps.map((s) => `  sudo ${stepText(s)}`).join("\n"),
      )
    for (const s of plan.steps) {
      const failed = runStep(s, env)
      yield* Console.log(`ran: ${stepText(s)}`)
      if (failed !== undefined) return yield* fail(`error: ${failed}`)
    }
    yield* Console.log(
      action === "trust"
        ? `trusted the local CA ${ca} (${SYSTEM_NAMES[system]}); browsers with their own store (Firefox, Chrome on Linux) need it added there: docs/proxy.md`
        : `removed the local CA ${ca} from the ${SYSTEM_NAMES[system]}`,
    )
  })
