// `supervisor cd --shell-pid PID`: what the shell hook runs at each directory change (and once
// at load). Plain Node (no Effect) for the prompt's sake: one POST of the shell's pid and
// directory (POST /api/shells/cd), the pending autostop notices printed on stderr, and nothing
// else, ever: no error is printed, the exit status is 0. A supervisor that is not running is
// started by a detached `cd --background`, which waits for it and reports the directory: the
// prompt never waits for a start (docs/shell.md).
// Its own bundle (dist/quick-cd.cjs) with `net` alone loaded up front: `node:http` costs more
// than the rest of the command.
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

/** The body of a whole HTTP/1.1 response (chunked or not); undefined when it is not a 200. */
export const responseBody = (raw: string): string | undefined => {
  const end = raw.indexOf("\r\n\r\n")
  if (end < 0 || !/^HTTP\/1\.[01] 200 /.test(raw)) return undefined
  const head = raw.slice(0, end).toLowerCase()
  let body = raw.slice(end + 4)
  if (/\r\ntransfer-encoding: *chunked/.test(head)) {
    let out = ""
    for (;;) {
      const nl = body.indexOf("\r\n")
      const size = nl < 0 ? 0 : Number.parseInt(body.slice(0, nl), 16)
      if (!(size > 0)) break
      out += body.slice(nl + 2, nl + 2 + size)
      body = body.slice(nl + 2 + size + 2)
    }
    body = out
  }
  return body
}

/**
 * One `POST /api/shells/cd` over the socket, in plain HTTP/1.1 (`Connection: close`); undefined
 * when no supervisor listens there. A slow or odd answer gives no notices.
 */
const report = (socket: string, pid: number, directory: string): Promise<Answer | undefined> =>
  new Promise((resolve) => {
    const body = Buffer.from(JSON.stringify({ pid, directory }))
    const chunks: Array<Buffer> = []
    let connected = false
    const s = net.connect(socket)
    const done = (answer: Answer | undefined) => {
      s.destroy()
      resolve(answer)
    }
    s.setTimeout(ANSWER_TIMEOUT_MS, () => done({ notices: [] }))
    s.on("connect", () => {
      connected = true
      s.write(
        `POST /api/shells/cd HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
      )
      s.end(body)
    })
    s.on("data", (chunk: Buffer) => chunks.push(chunk))
    s.on("end", () => {
      const text = responseBody(Buffer.concat(chunks).toString("utf8"))
      done({ notices: text === undefined ? [] : noticesOf(text) })
    })
    s.on("error", () => done(connected ? { notices: [] } : undefined))
  })

const detached = async (args: ReadonlyArray<string>, out: number | "ignore") => {
  const { spawn } = await import("node:child_process")
  const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", out, out] })
  child.unref()
}

/** Starts the supervisor in the background, its output in the supervisor log (as the CLI does). */
const startSupervisor = async (env: NodeJS.ProcessEnv) => {
  const fs = await import("node:fs")
  const paths = statePaths(stateDir(env))
  fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 })
  const log = fs.openSync(paths.supervisorLog, "a", 0o600)
  try {
    await detached([...supervisorNodeFlags, process.argv[1]!, "supervisor", "run"], log)
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
    await detached([process.argv[1]!, "cd", "--shell-pid", String(parsed.pid), "--background"], "ignore")
    return true
  }
  await startSupervisor(process.env)
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; ) {
    await sleep(100)
    if ((await report(socket, parsed.pid, directory)) !== undefined) break
  }
  return true
}
