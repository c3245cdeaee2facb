import { JSONSchema, Schema } from "effect"
import { DaemonList, LogLines, StartOutcomes, StopResults } from "../domain/CliOutput.js"
import { InstanceCount, MAX_INSTANCES } from "../domain/Instances.js"
import { CommandList } from "../usage/consume/mcpResults.js"
import type { JsonSchemaObject, ToolAnnotations } from "./definition.js"

/**
 * The tools of `supervisor mcp`: their inputs (Effect Schemas) and the CLI command each one runs.
 * Outputs are the Schemas the CLI prints its `--json` through (src/domain/CliOutput.ts), the API's
 * own entries, wrapped in an object where they are arrays (MCP's structured content is an object).
 */

/** A daemon ID as the CLI takes it (`api`, `proj/api`); never a flag. */
const DaemonId = Schema.String.pipe(
  Schema.pattern(/^[^-\s][^\s]*$/, {
    message: () => "a daemon ID is a word like api or proj/api (not empty, no spaces, not starting with -)",
  }),
).annotations({ description: "a daemon ID: api, or proj/api for another project's" })

const Ids = Schema.optional(Schema.Array(DaemonId)).annotations({
  description: "the daemons (default: as the CLI without IDs, the daemons of the current project)",
})

/** pitchfork's name for the daemons (its MCP tools take `id`): one ID or a list, added to `ids`. */
const PitchforkId = Schema.optional(Schema.Union(DaemonId, Schema.Array(DaemonId))).annotations({
  description: "the daemons as pitchfork's MCP tools name them: an ID or a list of IDs (the same as ids)",
})

/** The daemons a tool's input names: `ids`, then pitchfork's `id`, each once. */
export const daemonIds = (i: {
  readonly ids?: ReadonlyArray<string> | undefined
  readonly id?: string | ReadonlyArray<string> | undefined
}): Array<string> => [
  ...new Set([...(i.ids ?? []), ...(i.id === undefined ? [] : typeof i.id === "string" ? [i.id] : i.id)]),
]

export const ListInput = Schema.Struct({})
export const ListDaemonsInput = Schema.Struct({
  all: Schema.optional(Schema.Boolean).annotations({
    description: "every daemon the supervisor knows, of every project (default: this project's)",
  }),
})
export const StatusInput = Schema.Struct({ id: DaemonId })
export const StartInput = Schema.Struct({
  ids: Ids,
  id: PitchforkId,
  force: Schema.optional(Schema.Boolean).annotations({ description: "restart the daemons that already run" }),
})
export const StopInput = Schema.Struct({ ids: Ids, id: PitchforkId })
export const ScaleInput = Schema.Struct({
  id: DaemonId,
  count: InstanceCount.annotations({
    description: `how many of its instances run from now on: 1 to ${MAX_INSTANCES}`,
  }),
})
export const SendInput = Schema.Struct({
  id: DaemonId,
  text: Schema.optional(Schema.String).annotations({ description: "the text to type" }),
  keys: Schema.optional(Schema.Array(Schema.String)).annotations({
    description: "keys to type after the text, named as tmux names them: Enter, Tab, Escape, Up, C-c, M-x...",
  }),
  enter: Schema.optional(Schema.Boolean).annotations({ description: "press Enter at the end" }),
})
export const LogsInput = Schema.Struct({
  ids: Schema.optional(Schema.Array(DaemonId)).annotations({
    description: "the daemons (default: every daemon)",
  }),
  id: PitchforkId,
  n: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 10_000))).annotations({
    description: "the last N lines (default 100)",
  }),
  since: Schema.optional(Schema.String).annotations({
    description: "only lines since this time: 5min, 2h, or a date",
  }),
  grep: Schema.optional(Schema.Array(Schema.String)).annotations({
    description: "only lines containing one of these texts (case-insensitive)",
  }),
})
export const WaitReadyInput = Schema.Struct({
  id: DaemonId,
  since: Schema.optional(Schema.String).annotations({
    description:
      "count a run that began since this time (5min, 2h, or a date), such as the restart a file change made; default: wait for the next run (or the one starting now)",
  }),
  timeout: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(1, 3600))).annotations({
    description: "give up after this many seconds (default 60)",
  }),
})
export const DescribeInput = Schema.Struct({
  command: Schema.Array(Schema.String).annotations({
    description: 'the command\'s words after the program name: ["daemons", "stop"]; [] for the program',
  }),
})

export const ListOutput = Schema.Struct({ daemons: DaemonList })
export const StartOutput = Schema.Struct({ outcomes: StartOutcomes })
export const StopOutput = Schema.Struct({ results: StopResults })
export const LogsOutput = Schema.Struct({ lines: LogLines })
export const CommandsOutput = Schema.Struct({ commands: CommandList })

/**
 * The JSON Schema of an object Schema, as the SDK's low-level server takes it: a Schema with an
 * identifier comes out as `{ $ref: "#/$defs/X" }`, and MCP clients look for `type: "object"` and
 * its `properties` at the root, so the referenced definition is inlined there (`$defs` kept for
 * the nested references).
 */
export const objectSchema = (schema: Schema.Schema.Any): JsonSchemaObject => {
  const { $ref, ...json }: Record<string, unknown> = { ...JSONSchema.make(schema) }
  const defs = (json.$defs ?? {}) as Record<string, Record<string, unknown>>
  const name = typeof $ref === "string" ? $ref.replace("#/$defs/", "") : undefined
  const root = name !== undefined && defs[name] !== undefined ? { ...json, ...defs[name] } : json
  return { ...root, type: "object" }
}

export const hints = (title: string, kind: "read" | "write" | "destructive"): ToolAnnotations => ({
  title,
  readOnlyHint: kind === "read",
  destructiveHint: kind === "destructive",
  idempotentHint: kind !== "write",
  openWorldHint: false,
})

/** The flags of `logs` for the tool's input; 100 lines unless told. */
export const logsArgs = (i: typeof LogsInput.Type): Array<string> => [
  ...daemonIds(i),
  "-n",
  String(i.n ?? 100),
  ...(i.since === undefined ? [] : ["--since", i.since]),
  ...(i.grep ?? []).flatMap((g) => ["--grep", g]),
]
