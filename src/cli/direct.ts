import type { FileSystem } from "@effect/platform/FileSystem"
import type { Effect } from "effect"

// The configuration commands, when their arguments are exactly one of these forms, run
// without @effect/cli: the same code as their commands (src/cli/actions/config.ts), minus the
// evaluation of the argument parser and the parsing (~25 ms of every start). Anything else
// (other flags, --help, a typo) goes through @effect/cli as before.
type Program = Effect.Effect<void, never, FileSystem>

const config = () => import("./actions/config.js")
const DIRECT = new Map<string, () => Promise<Program>>([
  ["config\0show", () => config().then((m) => m.show(false))],
  ["config\0show\0--json", () => config().then((m) => m.show(true))],
  ["config\0validate", () => config().then((m) => m.validate(false))],
  ["config\0validate\0--json", () => config().then((m) => m.validate(true))],
])

/** The program of these arguments (after the script's path) when they are a direct form. */
export const directProgram = (args: ReadonlyArray<string>): (() => Promise<Program>) | undefined =>
  DIRECT.get(args.join("\0"))
