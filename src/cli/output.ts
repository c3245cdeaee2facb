import { Console, Effect, FiberRef, type Schema } from "effect"
import { jsonEncoder } from "../domain/jsonEncoding.js"
import { showsOnStderr } from "../domain/stderrLevel.js"
import { yellow } from "../terminal/style.js"

export { bold, cyan, dim, ExitCode, green, isTTY, red, yellow } from "../terminal/style.js"

/** `warning: TEXT` on stderr, unless SUPERVISOR_LOG is `error` (or `off`). */
export const warn = (text: string): Effect.Effect<void> =>
  Effect.suspend(() => (showsOnStderr("warn") ? Console.error(`${yellow("warning:")} ${text}`) : Effect.void))

/** A note or hint on stderr, unless SUPERVISOR_LOG is `warn` or lower. */
export const note = (text: string): Effect.Effect<void> =>
  Effect.suspend(() => (showsOnStderr("info") ? Console.error(text) : Effect.void))

/**
 * Prints `value` as indented JSON, encoded through `schema`: the command's output as its usage
 * spec declares it (src/domain/CliOutput.ts, src/cli/usageSpec/outputs.ts).
 */
export const printJson = <A, I>(schema: Schema.Schema<A, I>, value: NoInfer<A>): Effect.Effect<void> =>
  Effect.suspend(() => Console.log(jsonEncoder(schema, 2)(value)))

/**
 * The exit status a command asks for (0 unless it said otherwise): the CLI's entry
 * (src/cli/main.ts) applies it to the process once the command is done. Library code never sets
 * the process's exit code (test/cli/exitCode.test.ts).
 */
export const exitStatus: FiberRef.FiberRef<number> = FiberRef.unsafeMake(0)

/** Asks for exit status `code` without throwing: output stays clean, the command goes on. */
export const exitWith = (code: number): Effect.Effect<void> => FiberRef.set(exitStatus, code)
