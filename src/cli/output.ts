import { Console, Effect } from "effect"

export { bold, cyan, dim, ExitCode, green, isTTY, red, yellow } from "./style.js"

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** Sets the process exit code without throwing: output stays clean. */
export const exitWith = (code: number) =>
  Effect.sync(() => {
    process.exitCode = code
  })
