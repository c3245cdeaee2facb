import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Console, Effect } from "effect"
import { type BootContext, bootStatus, disableBoot, enableBoot, findOnPath } from "../../boot/boot.js"
import { BOOT_ARGS, bootEnvironment, bootLocation } from "../../boot/files.js"
import { BootChange, BootState } from "../../domain/BootOutput.js"
import { stateDir, statePaths } from "../../state/paths.js"
import { dim, green, yellow } from "../../terminal/style.js"
import { ExitCode, exitWith, printJson } from "../output.js"

/**
 * A system unit as root, else a user unit; SUPERVISOR_BOOT_SCOPE=user|system chooses (a user
 * unit for root's own user manager, or a system unit written by a user allowed to).
 */
const systemScope = (scope: string | undefined): boolean | string => {
  if (scope === undefined || scope === "") return process.getuid?.() === 0
  if (scope === "user" || scope === "system") return scope === "system"
  return `SUPERVISOR_BOOT_SCOPE=${scope} is not a scope: set it to user or system, or unset it`
}

/** This machine: its platform, whether we are root, this Node and this CLI (by its real path). */
const context = (): BootContext | string | undefined => {
  const env = process.env
  const isRoot = systemScope(env.SUPERVISOR_BOOT_SCOPE)
  if (typeof isRoot === "string") return isRoot
  const location = bootLocation({ platform: process.platform, env, home: env.HOME || os.homedir(), isRoot })
  if (location === undefined) return undefined
  const script = process.argv[1] ?? ""
  return {
    location,
    command: {
      node: process.execPath,
      cli: fs.existsSync(script) ? fs.realpathSync(script) : nodePath.resolve(script),
      env: bootEnvironment(env),
      log: statePaths(stateDir(env)).supervisorLog,
    },
    systemctl: findOnPath("systemctl", env.PATH),
  }
}

const withContext = (f: (ctx: BootContext) => Effect.Effect<void>) =>
  Effect.suspend(() => {
    const ctx = context()
    if (typeof ctx === "string")
      return Console.error(`error: ${ctx}`).pipe(Effect.zipRight(exitWith(ExitCode.failure)))
    return ctx === undefined
      ? Console.error(
          `error: starting at boot works with systemd (Linux) and launchd (macOS), not on ${process.platform}`,
        ).pipe(Effect.zipRight(exitWith(ExitCode.failure)))
      : f(ctx)
  })

const kind = (s: BootState) =>
  s.manager === "launchd" ? "launchd agent" : s.scope === "user" ? "systemd user unit" : "systemd unit"

const describe = (s: BootState) =>
  Effect.gen(function* () {
    yield* Console.log(`  file  ${s.file}${s.written ? "" : dim(" (none)")}`)
    if (s.link !== null)
      yield* Console.log(`  link  ${s.link}${s.enabled || !s.written ? "" : dim(" (none)")}`)
    if (s.node !== null && s.cli !== null)
      yield* Console.log(`  runs  ${[s.node, s.cli, ...BOOT_ARGS].join(" ")}`)
  })

/** `supervisor boot status`. */
export const status = (json: boolean) =>
  withContext((ctx) =>
    Effect.gen(function* () {
      const s = bootStatus(ctx)
      if (json) return yield* printJson(BootState, s)
      yield* Console.log(
        s.enabled
          ? `boot: enabled (${kind(s)})`
          : s.written
            ? `boot: disabled (${kind(s)} written but not linked; \`supervisor boot enable\` links it)`
            : "boot: disabled",
      )
      yield* describe(s)
      for (const path of s.foreign) yield* Console.log(yellow(`  another program's (left alone): ${path}`))
      for (const reason of s.stale) yield* Console.log(yellow(`  stale: ${reason}`))
      if (s.stale.length > 0) yield* Console.log("  `supervisor boot enable` rewrites it for this CLI")
    }),
  )

const report = (json: boolean, change: BootChange) =>
  Effect.gen(function* () {
    if (json) return yield* printJson(BootChange, change)
    if (change.action === "enable") {
      yield* Console.log(`${green("✓")} boot enabled (${kind(change)})`)
      yield* describe(change)
      for (const reason of change.rewritten) yield* Console.log(`  rewritten: ${reason}`)
    } else
      yield* Console.log(
        change.removed.length > 0
          ? `${green("✓")} boot disabled`
          : "boot: already disabled (nothing to remove)",
      )
    // disable: what it removed; enable: our unit of the old name, replaced
    for (const path of change.removed) yield* Console.log(`  removed  ${path}`)
    const reload = change.daemon_reload
    if (reload.ran)
      yield* Console.log(
        `  ${reload.command}: ${reload.ok ? "done" : `failed${reload.output ? ` (${reload.output})` : ""}`}`,
      )
    if (change.next_step !== null) yield* Console.log(`  ${change.next_step}`)
  })

const change = (
  json: boolean,
  f: (ctx: BootContext) => Effect.Effect<BootChange, { readonly message: string }>,
) =>
  withContext((ctx) =>
    f(ctx).pipe(
      Effect.flatMap((c) => report(json, c)),
      Effect.catchAll((e) =>
        Console.error(`error: ${e.message}`).pipe(Effect.zipRight(exitWith(ExitCode.failure))),
      ),
    ),
  )

/** `supervisor boot enable`. */
export const enable = (json: boolean) => change(json, enableBoot)

/** `supervisor boot disable`. */
export const disable = (json: boolean) => change(json, disableBoot)
