// The CLI against a supervisor at a URL (docs/remote.md): the global flags `--url`, `--token-file`
// and `--ca` (or SUPERVISOR_URL, SUPERVISOR_API_TOKEN / SUPERVISOR_API_TOKEN_FILE, SUPERVISOR_CA),
// and the commands that need this machine's files, refused in one line.
import * as fs from "node:fs"
import { Data, Effect } from "effect"

/** The global flags and the variables they set (a child process, the dashboard, sees them). */
export const REMOTE_FLAGS = {
  "--url": "SUPERVISOR_URL",
  "--token-file": "SUPERVISOR_API_TOKEN_FILE",
  "--ca": "SUPERVISOR_CA",
} as const

/** A remote target that cannot be used: the flag or variable named, and the fix. */
export class RemoteProblem extends Data.TaggedError("RemoteProblem")<{ readonly message: string }> {}

/** Where the CLI sends its requests when a URL is given. */
export interface RemoteTarget {
  /** The supervisor's URL without a trailing slash (`https://host:3121`, or with a base path). */
  readonly url: string
  readonly token: string
  /** The CA certificates (PEM) trusted besides the system's, from `--ca`. */
  readonly ca: string | undefined
  /** Where `ca` was read from, for messages. */
  readonly caFile: string | undefined
}

/** Commands whose last word stops the global flags: what follows is a command line of its own. */
const VERBATIM = new Set(["run", "daemons"])

/**
 * `args` without the global remote flags (`--url U`, `--url=U`, ...), which are moved into `env`;
 * up to a `--`, and for `run` and `daemons` only before the command's name (their words may be a
 * command line with flags of its own). A flag without its value is a usage problem.
 */
export const takeRemoteFlags = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
): { readonly args: ReadonlyArray<string>; readonly problem?: string } => {
  const rest: Array<string> = []
  let command: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--" || (command !== undefined && VERBATIM.has(command))) {
      rest.push(...args.slice(i))
      break
    }
    const [name, attached] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s) : [arg, undefined]
    if (name !== undefined && Object.hasOwn(REMOTE_FLAGS, name)) {
      const value = attached ?? args[++i]
      if (value === undefined || value === "" || (attached === undefined && value.startsWith("--")))
        return { args, problem: `${name} needs a value` }
      env[REMOTE_FLAGS[name as keyof typeof REMOTE_FLAGS]] = value
      continue
    }
    if (command === undefined && !arg.startsWith("-")) command = arg
    rest.push(arg)
  }
  return { args: rest }
}

/** Whether the CLI talks to a supervisor at a URL (`--url` or SUPERVISOR_URL). */
export const isRemote = (env: NodeJS.ProcessEnv = process.env): boolean =>
  (env.SUPERVISOR_URL ?? "").trim() !== ""

const readFile = (path: string, what: string) =>
  Effect.try({
    try: () => fs.readFileSync(path, "utf8"),
    catch: (e) =>
      new RemoteProblem({
        message: `cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      }),
  })

/** The target of `--url` with its token and trust, or a problem naming the flag or variable to fix. */
export const remoteTarget = (
  env: NodeJS.ProcessEnv = process.env,
): Effect.Effect<RemoteTarget, RemoteProblem> =>
  Effect.gen(function* () {
    const raw = (env.SUPERVISOR_URL ?? "").trim()
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return yield* new RemoteProblem({
        message: `--url ${JSON.stringify(raw)} (SUPERVISOR_URL) is not a URL; write e.g. https://host:3121`,
      })
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return yield* new RemoteProblem({
        message: `--url ${JSON.stringify(raw)} (SUPERVISOR_URL): only http:// and https:// URLs are supported`,
      })
    const tokenFile = (env.SUPERVISOR_API_TOKEN_FILE ?? "").trim()
    const token =
      tokenFile !== ""
        ? (yield* readFile(tokenFile, "the token file (--token-file, SUPERVISOR_API_TOKEN_FILE)")).trim()
        : (env.SUPERVISOR_API_TOKEN ?? "").trim()
    if (token === "")
      return yield* new RemoteProblem({
        message:
          tokenFile !== ""
            ? `the token file ${tokenFile} is empty; copy the supervisor's token into it (\`supervisor supervisor token\` on its machine prints it)`
            : "a supervisor at a URL needs its token: set SUPERVISOR_API_TOKEN, or give a file with --token-file (SUPERVISOR_API_TOKEN_FILE); `supervisor supervisor token` on its machine prints it",
      })
    const caFile = (env.SUPERVISOR_CA ?? "").trim()
    const ca = caFile === "" ? undefined : yield* readFile(caFile, "the CA file (--ca, SUPERVISOR_CA)")
    if (ca !== undefined && !ca.includes("-----BEGIN CERTIFICATE-----"))
      return yield* new RemoteProblem({
        message: `the CA file ${caFile} (--ca, SUPERVISOR_CA) holds no PEM certificate; copy the supervisor's <state dir>/proxy/ca.pem`,
      })
    const base = `${url.origin}${url.pathname.replace(/\/+$/, "")}`
    return { url: base, token, ca, caFile: caFile === "" ? undefined : caFile }
  })

/**
 * The commands that work against a supervisor at a URL, by their first word (`supervisor` by its
 * first two). The others read or write this machine's files (configuration, state directory,
 * shell, boot) or start processes here.
 */
const REMOTE_COMMANDS = new Set([
  "list",
  "status",
  "logs",
  "attach",
  "start",
  "stop",
  "restart",
  "enable",
  "disable",
  "events",
  "tui",
  "supervisor status",
  // local only, never the supervisor: they work anywhere
  "usage",
  "spec",
  "schema",
  "completion",
  "complete",
])

/** Exit status of a command refused with a URL: the combination is a usage error. */
export const REMOTE_REFUSAL_EXIT = 2

/** The one line refusing `args` against a supervisor at a URL, or undefined when it may run. */
export const remoteRefusal = (args: ReadonlyArray<string>): string | undefined => {
  // the program's own flags (`--version`, `--help`, `--completions SHELL`) need no supervisor
  if (args[0] === undefined || args[0].startsWith("-")) return undefined
  const [first, second] = args.filter((a) => !a.startsWith("-"))
  if (first === undefined) return undefined
  const key = first === "supervisor" ? `supervisor ${second ?? ""}`.trim() : first
  // deleting logs is not among what the listener serves a remote CLI
  if (key === "logs" && args.some((a) => a === "--clear" || a === "-c"))
    return "`supervisor logs --clear` deletes log files on the supervisor's machine: it does not work with --url (SUPERVISOR_URL); run it there"
  if (REMOTE_COMMANDS.has(key)) return undefined
  // reading the settings asks the supervisor (the Settings command); `settings set` writes files here
  if (key === "settings" && (second === undefined || second === "list" || second === "get")) return undefined
  // an unknown word is the usage checks' to name
  return `\`supervisor ${key}\` needs the local files of the supervisor's machine (its configuration, state directory, shell or processes): it does not work with --url (SUPERVISOR_URL); run it there, or unset SUPERVISOR_URL`
}
