// `supervisor cd --shell-pid PID`: what the shell hook runs at each directory change (and once
// at load). Plain Node (no Effect) for the prompt's sake: one POST of the shell's pid and
// directory (POST /api/shells/cd), the pending autostop notices printed on stderr, and nothing
// else, ever: no error is printed, the exit status is 0. A supervisor that is not running is
// started by a detached `cd --background`, which waits for it and reports the directory: the
// prompt never waits for a start (docs/shell.md).
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import { supervisorNodeFlags } from "../host/nodeFlags.js"
import { stateDir, statePaths } from "../state/paths.js"

/** How long the prompt waits for the supervisor's answer at most. */
const ANSWER_TIMEOUT_MS = 2_000
/** How long a background `cd` waits for a supervisor it started. */
const START_TIMEOUT_MS = 15_000

export interface CdArgs {
  readonly pid: number
  readonly background: boolean
}

/** `--shell-pid N [--background]`; undefined for anything else. */
export const parseCdArgs = (args: ReadonlyArray<string>): CdArgs | undefined => {
  let pid: number | undefined
  let background = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const value =
      arg === "--shell-pid" ? args[++i] : arg.startsWith("--shell-pid=") ? arg.slice(12) : undefined
    if (value !== undefined) {
      if (pid !== undefined || !/^[1-9]\d{0,9}$/.test(value)) return undefined
      pid = Number(value)
    } else if (arg === "--background" && !background) background = true
    else return undefined
  }
  return pid === undefined ? undefined : { pid, background }
}

type Answer = { readonly notices: ReadonlyArray<string> }

/** The notices of the supervisor's answer; undefined when it is not running (or did not answer). */
const report = (socket: string, pid: number, directory: string): Promise<Answer | undefined> =>
  new Promise((resolve) => {
    const body = JSON.stringify({ pid, directory })
    const request = http.request(
      {
        createConnection: () => net.connect(socket),
        path: "/api/shells/cd",
        method: "POST",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        let text = ""
        response.setEncoding("utf8")
        response.on("data", (d: string) => {
          text += d
        })
        response.on("end", () => {
          try {
            const value: unknown = JSON.parse(text)
            const notices =
              typeof value === "object" &&
              value !== null &&
              "notices" in value &&
              Array.isArray(value.notices)
                ? value.notices.filter((n): n is string => typeof n === "string")
                : []
            resolve({ notices })
          } catch {
            resolve({ notices: [] })
          }
        })
        response.on("error", () => resolve({ notices: [] }))
      },
    )
    request.setTimeout(ANSWER_TIMEOUT_MS, () => {
      request.destroy()
      resolve({ notices: [] })
    })
    request.on("error", () => resolve(undefined))
    request.end(body)
  })

const detached = (args: ReadonlyArray<string>, out: number | "ignore") => {
  const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", out, out] })
  child.unref()
}

/** Starts the supervisor in the background, its output in the supervisor log (as the CLI does). */
const startSupervisor = (env: NodeJS.ProcessEnv) => {
  const paths = statePaths(stateDir(env))
  fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 })
  const log = fs.openSync(paths.supervisorLog, "a", 0o600)
  try {
    detached([...supervisorNodeFlags, process.argv[1]!, "supervisor", "run"], log)
  } finally {
    fs.closeSync(log)
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs `cd`; always resolves true (the full CLI is only for arguments of another form). */
export const quickCd = async (args: ReadonlyArray<string>): Promise<boolean> => {
  const parsed = parseCdArgs(args)
  if (parsed === undefined) return false
  const socket = statePaths(stateDir(process.env)).socket
  const directory = process.cwd()
  const answer = await report(socket, parsed.pid, directory)
  if (answer !== undefined) {
    for (const notice of answer.notices) process.stderr.write(`supervisor: ${notice}\n`)
    return true
  }
  if (process.env.SUPERVISOR_SUPERVISOR_AUTO_START === "false") return true
  if (!parsed.background) {
    // the prompt does not wait: a detached `cd` starts the supervisor and reports the directory
    detached([process.argv[1]!, "cd", "--shell-pid", String(parsed.pid), "--background"], "ignore")
    return true
  }
  startSupervisor(process.env)
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; ) {
    await sleep(100)
    if ((await report(socket, parsed.pid, directory)) !== undefined) break
  }
  return true
}
