import { Command, ValidationError } from "@effect/cli"
import { Cause, Effect } from "effect"
import { VERSION } from "../domain/version.js"
import { stripAnsi } from "../logs/ansi.js"

/** What a CLI command printed, and its exit status. */
export interface Captured {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
}

const text = (args: ReadonlyArray<unknown>) =>
  `${args.map((a) => (typeof a === "string" ? stripAnsi(a) : String(a))).join(" ")}\n`

/**
 * Runs `effect` with what it prints captured: its Console, and `process.stdout` (logs writes
 * there directly). The exit status it sets (`process.exitCode`) is read and reset, so the MCP
 * server's own status stays untouched. Callers run one capture at a time (`process` is global).
 */
export const capture = <E, R>(effect: Effect.Effect<unknown, E, R>): Effect.Effect<Captured, never, R> =>
  Effect.suspend(() => {
    let stdout = ""
    let stderr = ""
    const saved = process.exitCode
    process.exitCode = undefined
    const write = process.stdout.write
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: ReadonlyArray<unknown>) => {
      stdout += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")
      const done = rest.find((r) => typeof r === "function") as (() => void) | undefined
      done?.()
      return true
    }) as typeof process.stdout.write
    const restore = Effect.sync(() => {
      process.stdout.write = write
    })
    return Effect.flatMap(Effect.console, (console) =>
      Effect.withConsole(effect, {
        ...console,
        log: (...args: ReadonlyArray<unknown>) =>
          Effect.sync(() => {
            stdout += text(args)
          }),
        error: (...args: ReadonlyArray<unknown>) =>
          Effect.sync(() => {
            stderr += text(args)
          }),
      }),
    ).pipe(
      Effect.catchAllCause((cause) =>
        Effect.sync(() => {
          stderr += `error: ${Cause.pretty(cause).split("\n")[0]}\n`
          process.exitCode = process.exitCode || 1
        }),
      ),
      Effect.ensuring(restore),
      Effect.map(() => {
        const code = typeof process.exitCode === "number" ? process.exitCode : Number(process.exitCode ?? 0)
        process.exitCode = saved
        return { stdout, stderr, exitCode: code }
      }),
    )
  })

/** Runs one CLI command (`["start", "--json", "api"]`) of `root` in this process, captured. */
export const runCommand = <N extends string, R, E, A>(
  root: Command.Command<N, R, E, A>,
  args: ReadonlyArray<string>,
) => {
  const cli = Command.run(root, {
    name: "supervisor",
    version: VERSION,
  })
  return capture(
    cli(["node", "supervisor", ...args]).pipe(
      // @effect/cli has printed the problem already: a usage error, as the CLI exits
      Effect.catchIf(ValidationError.isValidationError, () =>
        Effect.sync(() => {
          process.exitCode = 2
        }),
      ),
    ),
  )
}
