// `supervisor cd --shell-pid PID`: what the shell hook runs at each directory change (and once
// at load). Plain Node (no Effect) for the prompt's sake: one POST of the shell's pid and
// directory (POST /api/shells/cd), the pending autostop notices printed on stderr, and nothing
// else, ever: no error is printed, the exit status is 0. A supervisor that is not running, or
// that does not answer in time, is left to a detached `cd --background`, which starts the
// supervisor if none runs and reports the directory until it is answered: the prompt never waits
// for a start (docs/shell.md). Each report carries when the hook ran, so that a late report
// never moves the shell back to where it was before.
// Its own bundle (dist/quick-cd.cjs) with `net` alone loaded up front (src/quick/http1.ts).
import { CD_ANSWER_TIMEOUT_MS, monotonicMicros } from "../domain/cliNotices.js"
import { withMallocTuning } from "../host/mallocTuning.js"
import { supervisorNodeFlags } from "../host/nodeFlags.js"
import { stateDir, statePaths } from "../state/paths.js"
import { exchange, readAll } from "./http1.js"

/** How long a background `cd` keeps reporting to a supervisor that does not answer yet. */
const START_TIMEOUT_MS = 15_000

export interface CdArgs {
  readonly pid: number
  readonly background: boolean
  /** When the hook ran (`--at`, given to the background `cd` by the hook's own). */
  readonly at: number | undefined
}

/** A whole decimal number (no sign, no leading zero), or undefined. */
const whole = (value: string | undefined, digits: number) =>
  value !== undefined && new RegExp(`^(0|[1-9]\\d{0,${digits - 1}})$`).test(value) ? Number(value) : undefined

/** `--shell-pid N [--background] [--at T]`; undefined for anything else. */
export const parseCdArgs = (args: ReadonlyArray<string>): CdArgs | undefined => {
  let pid: number | undefined
  let at: number | undefined
  let background = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined]
    if (name === "--shell-pid" || name === "--at") {
      const value = whole(inline ?? args[++i], name === "--at" ? 15 : 10)
      if (value === undefined) return undefined
      if (name === "--at") {
        if (at !== undefined) return undefined
        at = value
      } else {
        if (pid !== undefined || value === 0) return undefined
        pid = value
      }
    } else if (arg === "--background" && !background) background = true
    else return undefined
  }
  return pid === undefined ? undefined : { pid, background, at }
}

/** A report's outcome: answered (its notices), no supervisor there, or no answer in time. */
type Outcome =
  | { readonly _tag: "answered"; readonly notices: ReadonlyArray<string> }
  | { readonly _tag: "absent" }
  | { readonly _tag: "unanswered" }

/** The notices in an answer's body (anything unexpected: none). */
const noticesOf = (body: string): ReadonlyArray<string> => {
  try {
    const value: unknown = JSON.parse(body)
    return typeof value === "object" && value !== null && "notices" in value && Array.isArray(value.notices)
      ? value.notices.filter((n): n is string => typeof n === "string")
      : []
  } catch {
    return []
  }
}

/**
 * One `POST /api/shells/cd` over the socket. Only a 200 counts as answered: the supervisor
 * records the shell once it has accepted the report.
 */
const report = async (socket: string, pid: number, directory: string, at: number): Promise<Outcome> => {
  const reply = await exchange({
    socket,
    method: "POST",
    path: "/api/shells/cd",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ pid, directory, at }),
    timeoutMs: CD_ANSWER_TIMEOUT_MS,
  })
  if (reply === "unreachable") return { _tag: "absent" }
  if (reply === "no reply") return { _tag: "unanswered" }
  const body = await readAll(reply)
  return reply.status !== 200 || body === undefined
    ? { _tag: "unanswered" }
    : { _tag: "answered", notices: noticesOf(body.toString("utf8")) }
}

const detached = async (args: ReadonlyArray<string>, out: number | "ignore", env = process.env) => {
  const { spawn } = await import("node:child_process")
  const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", out, out], env })
  child.unref()
}

/** Starts the supervisor in the background, its output in the supervisor log (as the CLI does). */
const startSupervisor = async (env: NodeJS.ProcessEnv) => {
  const fs = await import("node:fs")
  const paths = statePaths(stateDir(env))
  fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 })
  const log = fs.openSync(paths.supervisorLog, "a", 0o600)
  try {
    await detached(
      [...supervisorNodeFlags, process.argv[1]!, "supervisor", "run"],
      log,
      withMallocTuning(env),
    )
  } finally {
    fs.closeSync(log)
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs `cd`; always resolves true (the full CLI is only for arguments of another form). */
export const quickCd = async (args: ReadonlyArray<string>): Promise<boolean> => {
  const parsed = parseCdArgs(args)
  if (parsed === undefined) return false
  const at = parsed.at ?? monotonicMicros()
  const dir = stateDir(process.env)
  const socket = statePaths(dir).socket
  const directory = process.cwd()
  const autoStart = process.env.SUPERVISOR_SUPERVISOR_AUTO_START !== "false"
  if (!parsed.background) {
    const outcome = await report(socket, parsed.pid, directory, at)
    if (outcome._tag === "answered") {
      for (const notice of outcome.notices) process.stderr.write(`supervisor: ${notice}\n`)
      return true
    }
    if (outcome._tag === "absent" && !autoStart) return true
    // the prompt does not wait: a detached `cd` (starting the supervisor if none runs) reports
    // the directory, stamped with this run's time
    const again = ["cd", "--shell-pid", String(parsed.pid), "--background", "--at", String(at)]
    await detached([process.argv[1]!, ...again], "ignore")
    return true
  }
  let started = false
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; await sleep(100)) {
    const outcome = await report(socket, parsed.pid, directory, at)
    if (outcome._tag === "answered") break
    // one supervisor per state directory: none is started while one holds the lock (starting)
    if (outcome._tag === "absent" && autoStart && !started) {
      const { lockIsHeld } = await import("../host/lockName.js")
      if (!(await lockIsHeld(dir))) {
        await startSupervisor(process.env)
        started = true
      }
    }
  }
  return true
}
