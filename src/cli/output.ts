import { Console, Effect, type Schema } from "effect"
import { jsonEncoder } from "../domain/jsonEncoding.js"

export { bold, cyan, dim, ExitCode, green, isTTY, red, yellow } from "./style.js"

/**
 * Prints `value` as indented JSON, encoded through `schema`: the command's output as its usage
 * spec declares it (src/domain/CliOutput.ts, src/cli/usageSpec/outputs.ts).
 */
export const printJson = <A, I>(schema: Schema.Schema<A, I>, value: NoInfer<A>): Effect.Effect<void> =>
  Effect.suspend(() => Console.log(jsonEncoder(schema, 2)(value)))

/** Sets the process exit code without throwing: output stays clean. */
export const exitWith = (code: number) =>
  Effect.sync(() => {
    process.exitCode = code
  })
