/**
 * The `runtime.ts` file of a generated TypeScript SDK, verbatim: running the CLI, building its
 * command line and parsing its output live here once, so each generated command class is only
 * names and data. Node built-ins only (a generated SDK must not add dependencies), and written to
 * compile under `tsc --strict` with `exactOptionalPropertyTypes` and `noUncheckedIndexedAccess`,
 * since it lands in projects whose settings we do not know.
 *
 * Kept free of backticks, template placeholders and backslashes so it can live in this template
 * literal unchanged.
 */
export const typeScriptRuntime = `// Runtime of a generated SDK: runs the CLI and parses its output. Node built-ins only.
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process"
import { constants } from "node:os"
import { createInterface, type Interface } from "node:readline"

/** Options every method takes: where, and with which environment, the CLI runs. */
export interface ExecOptions {
  /** Working directory of the CLI (default: this process's). */
  readonly cwd?: string
  /** Environment of the CLI (default: this process's). */
  readonly env?: NodeJS.ProcessEnv
  /** JSONL streams: how long a stopped CLI gets after SIGTERM before SIGKILL (default 2000 ms). */
  readonly killGraceMs?: number
}

/** How the CLI ended. */
export interface ExitInfo {
  /** The exit status; for a CLI ended by a signal, 128 + the signal number, as shells report it. */
  readonly exitCode: number
  /** The signal that ended the CLI, if one did. */
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
}

/** What the raw exec method returns: everything the CLI wrote, and how it ended. */
export interface ExecResult extends ExitInfo {
  readonly stdout: string
}

/** What a json method returns. A non-zero exit is reported here, never thrown. */
export interface JsonResult<T> extends ExecResult {
  /**
   * The parsed stdout; null when stdout was empty, or when a CLI that failed (non-zero exit)
   * wrote something that is not JSON.
   */
  readonly value: T | null
}

/** How one key of a flags object goes on the command line. */
export interface FlagSpec {
  /** The flag as typed: "--dry-run", or "-n" for a flag with only a short name. */
  readonly argv: string
  /** "boolean": present or absent (a number repeats it); "value": followed by its value. */
  readonly kind: "boolean" | "value"
}

/** Flags-object key to command-line flag, per command. */
export type FlagTable = { readonly [key: string]: FlagSpec }

/** A value of a flags object: see FlagSpec for how each kind is written. */
export type FlagValue = boolean | number | string | ReadonlyArray<string>

/** Any generated flags object, as the runtime reads it. */
export type FlagValues = { readonly [key: string]: FlagValue | undefined }

/** The CLI wrote something that is not JSON where JSON was declared. */
export class JsonParseError extends Error {
  override readonly name = "JsonParseError"
  /** The text that did not parse. */
  readonly text: string

  constructor(message: string, text: string, cause: unknown) {
    super(message, { cause })
    this.text = text
  }
}

/**
 * The command line after the binary: subcommand path, flags (in the spec's order), the output
 * selector the method chose, then positional arguments (undefined ones skipped). Keys in "omit"
 * (the selector flags) are dropped so a caller's value cannot contradict the method's choice.
 */
export const buildArgv = (
  path: ReadonlyArray<string>,
  table: FlagTable,
  flags: FlagValues,
  args: ReadonlyArray<string | undefined>,
  selectorArgv: ReadonlyArray<string> = [],
  omit: ReadonlyArray<string> = [],
): Array<string> => {
  for (const key of Object.keys(flags)) {
    if (table[key] === undefined) throw new TypeError("unknown flag: " + key)
  }
  const argv = [...path]
  for (const [key, spec] of Object.entries(table)) {
    const value = flags[key]
    if (value === undefined || omit.includes(key)) continue
    if (spec.kind === "boolean") {
      if (typeof value !== "boolean" && typeof value !== "number") {
        throw new TypeError("flag " + key + " takes a boolean or a count")
      }
      const times = typeof value === "number" ? value : value ? 1 : 0
      for (let i = 0; i < times; i++) argv.push(spec.argv)
    } else {
      if (typeof value === "boolean") throw new TypeError("flag " + key + " takes a value")
      const values = typeof value === "object" ? value : [String(value)]
      for (const item of values) argv.push(spec.argv, item)
    }
  }
  argv.push(...selectorArgv)
  // An optional argument left undefined is simply not passed.
  for (const arg of args) if (arg !== undefined) argv.push(arg)
  return argv
}

const spawnCli = (bin: string, argv: ReadonlyArray<string>, options: ExecOptions): ChildProcess => {
  // stdin is closed: the SDK never answers prompts, and a CLI waiting on input must not hang it.
  const spawnOptions: SpawnOptions = { stdio: ["ignore", "pipe", "pipe"] }
  if (options.cwd !== undefined) spawnOptions.cwd = options.cwd
  if (options.env !== undefined) spawnOptions.env = options.env
  return spawn(bin, argv, spawnOptions)
}

const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number => {
  if (code !== null) return code
  const signals: { readonly [name: string]: number | undefined } = constants.signals
  return signal === null ? 1 : 128 + (signals[signal] ?? 0)
}

/** Runs the CLI to completion. Rejects only when it cannot be started (e.g. binary not found). */
export const runExec = (
  bin: string,
  argv: ReadonlyArray<string>,
  options: ExecOptions = {},
): Promise<ExecResult> =>
  new Promise((resolve, reject) => {
    const child = spawnCli(bin, argv, options)
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk))
    child.once("error", reject)
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) =>
      resolve({
        exitCode: exitCodeOf(code, signal),
        signal,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      }),
    )
  })

/**
 * Runs the CLI and parses stdout as one JSON document. Empty stdout gives null. Unparsable
 * stdout throws only when the CLI succeeded (it broke its declared contract); after a failure
 * the exit code is the news, so value is null and the raw text stays in stdout.
 */
export const runJson = async <T>(
  bin: string,
  argv: ReadonlyArray<string>,
  options: ExecOptions = {},
): Promise<JsonResult<T>> => {
  const result = await runExec(bin, argv, options)
  const text = result.stdout.trim()
  if (text === "") return { ...result, value: null }
  try {
    return { ...result, value: JSON.parse(text) as T }
  } catch (cause) {
    if (result.exitCode !== 0) return { ...result, value: null }
    throw new JsonParseError("stdout of the CLI is not JSON", result.stdout, cause)
  }
}

/** Lines buffered before reading pauses (back-pressure on the CLI), and where it resumes. */
const highWater = 256
const lowWater = 16

/**
 * A running CLI whose stdout is read as JSON Lines, one parsed document per line as it arrives.
 * Blank lines are skipped; a line that is not JSON ends the CLI and rejects next().
 *
 * Stopping early ("break" in "for await", return(), or stop()) kills the CLI: SIGTERM, then
 * SIGKILL after killGraceMs; the returned promise settles once it has exited, so when the loop
 * is left the process is gone. A stream nobody iterates or stops keeps its CLI running.
 *
 * Iteration ends when the CLI has closed stdout and exited; a non-zero exit does not throw, read
 * it from "exit".
 */
export class JsonlStream<T = unknown> implements AsyncIterableIterator<T> {
  /** Process id of the CLI; undefined when it could not be started. */
  readonly pid: number | undefined
  /**
   * How the CLI ended, once it has and its output is closed. Rejects only when the CLI could
   * not be started (next() rejects with the same error).
   */
  readonly exit: Promise<ExitInfo>
  private readonly child: ChildProcess
  private readonly reader: Interface | undefined
  private readonly exited: Promise<void>
  private readonly killGraceMs: number
  private readonly lines: Array<string> = []
  private waiters: Array<() => void> = []
  private ended = false
  private hasExited = false
  private failure: Error | undefined
  private stopping: Promise<void> | undefined

  constructor(bin: string, argv: ReadonlyArray<string>, options: ExecOptions = {}) {
    this.killGraceMs = options.killGraceMs ?? 2000
    const child = spawnCli(bin, argv, options)
    this.child = child
    this.pid = child.pid
    const stderr: Array<Buffer> = []
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk))
    this.exited = new Promise((resolve) => {
      child.once("exit", () => {
        this.hasExited = true
        resolve()
      })
      child.once("error", () => resolve())
    })
    this.exit = new Promise((resolve, reject) => {
      child.once("error", (error: Error) => {
        this.failure = error
        this.wake()
        reject(error)
      })
      child.once("close", (code: number | null, signal: NodeJS.Signals | null) =>
        resolve({ exitCode: exitCodeOf(code, signal), signal, stderr: Buffer.concat(stderr).toString("utf8") }),
      )
    })
    // Callers who only iterate learn of a start failure from next(); do not report it twice.
    this.exit.catch(() => undefined)
    const stdout = child.stdout
    if (stdout === null) {
      this.reader = undefined
      this.ended = true
      return
    }
    const reader = createInterface({ input: stdout, crlfDelay: Number.POSITIVE_INFINITY })
    this.reader = reader
    reader.on("line", (line: string) => {
      this.lines.push(line)
      if (this.lines.length >= highWater) reader.pause()
      this.wake()
    })
    reader.once("close", () => {
      this.ended = true
      this.wake()
    })
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure
      const line = this.lines.shift()
      if (line !== undefined) {
        if (this.lines.length <= lowWater && this.stopping === undefined) this.reader?.resume()
        if (line.trim() === "") continue
        try {
          return { done: false, value: JSON.parse(line) as T }
        } catch (cause) {
          await this.stop()
          throw new JsonParseError("a line of the CLI's stdout is not JSON", line, cause)
        }
      }
      if (this.ended) {
        await this.exited
        if (this.failure !== undefined) throw this.failure
        return { done: true, value: undefined }
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** Called by "break" in "for await": stops the CLI (see stop()). */
  async return(): Promise<IteratorResult<T, undefined>> {
    await this.stop()
    return { done: true, value: undefined }
  }

  /**
   * Stops reading and ends the CLI if it still runs (SIGTERM, then SIGKILL after killGraceMs).
   * Resolves once it has exited. Safe to call more than once.
   */
  stop(): Promise<void> {
    this.stopping ??= this.terminate()
    return this.stopping
  }

  private async terminate(): Promise<void> {
    this.ended = true
    this.lines.length = 0
    this.reader?.close()
    this.child.stdout?.destroy()
    if (!this.hasExited && this.pid !== undefined) {
      this.child.kill("SIGTERM")
      const escalate = setTimeout(() => this.child.kill("SIGKILL"), this.killGraceMs)
      try {
        await this.exited
      } finally {
        clearTimeout(escalate)
      }
    }
    this.wake()
  }

  private wake(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }
}

/** Starts the CLI and returns its stdout as a stream of parsed JSON Lines. */
export const runJsonl = <T>(bin: string, argv: ReadonlyArray<string>, options: ExecOptions = {}): JsonlStream<T> =>
  new JsonlStream<T>(bin, argv, options)
`
