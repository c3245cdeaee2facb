import type { Command, ExitCode, Flag, Output, Spec } from "../../../src/usage/model.js"

/**
 * A hand-built resolved spec (what the parser would produce) covering what the consumers must
 * handle: nested commands, a global `--format` value selector whose choices differ per command,
 * a `--json` boolean selector, a valid and an invalid schema, a `|` in an exit code, a hidden
 * command and aliases.
 */

export const validSchema = JSON.stringify({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { daemons: { type: "array", items: { type: "string" } } },
  required: ["daemons"],
})

/** Not JSON at all: consumers must keep it verbatim. */
export const invalidSchema = "{ type: object, this is not | JSON"

const textOut: Output = {
  name: "text",
  framing: "text",
  help: "Human-readable table",
  default: true,
  selector: { kind: "value", flag: "--format", value: "text" },
}
const jsonOut: Output = {
  name: "json",
  media_type: "application/json",
  framing: "json",
  help: "One JSON document",
  default: false,
  selector: { kind: "value", flag: "--format", value: "json" },
  schema: validSchema,
}
const jsonlOut: Output = {
  name: "jsonl",
  media_type: "application/jsonl",
  framing: "jsonl",
  help: "One JSON event per line",
  default: false,
  selector: { kind: "value", flag: "--format", value: "jsonl" },
  schema: invalidSchema,
}
const xmlOut: Output = {
  name: "xml",
  media_type: "application/xml",
  framing: "text",
  help: "An XML document",
  default: false,
  selector: { kind: "value", flag: "--format", value: "xml" },
}

/** `withHelp: false` leaves the choices bare, so consumers must borrow the outputs' help. */
const formatFlag = (outputs: ReadonlyArray<Output>, withHelp = true): Flag => ({
  usage: "-f --format <FMT>",
  long: ["format"],
  short: ["f"],
  help: "Output format",
  global: true,
  hide: false,
  variadic: false,
  arg: {
    name: "FMT",
    required: true,
    choices: outputs.map((o) =>
      withHelp && o.help !== undefined ? { value: o.name, help: o.help } : { value: o.name },
    ),
  },
})
const verbose: Flag = {
  usage: "-v --verbose",
  long: ["verbose"],
  short: ["v"],
  help: "More output; repeat for more",
  global: true,
  hide: false,
  variadic: true,
}
const config: Flag = {
  usage: "--config <PATH>",
  long: ["config"],
  short: [],
  help: "Read this config file",
  global: false,
  hide: false,
  variadic: false,
  arg: { name: "PATH", required: true },
}
const jsonFlag: Flag = {
  usage: "--json",
  long: ["json"],
  short: [],
  help: "Shorthand for --format json",
  global: false,
  hide: false,
  variadic: false,
}
const debugFlag: Flag = {
  usage: "--trace",
  long: ["trace"],
  short: [],
  help: "Internal tracing",
  global: false,
  hide: true,
  variadic: false,
}
const signal: Flag = {
  usage: "-s --signal <SIG>",
  long: ["signal"],
  short: ["s"],
  help: "Signal to send",
  global: false,
  hide: false,
  variadic: false,
  arg: {
    name: "SIG",
    required: true,
    choices: [{ value: "TERM", help: "Polite" }, { value: "KILL" }],
  },
  default: "TERM",
}

export const rootExitCodes: ReadonlyArray<ExitCode> = [
  { code: 0, description: "Success" },
  { code: 1, description: "Failure | see the supervisor log" },
  { code: 130, description: "Interrupted (SIGINT)" },
]

const base = {
  aliases: [],
  hide: false,
  args: [],
  examples: [],
  subcommands: [],
  passthrough: [],
} as const

const rootOutputs = [textOut, jsonOut, jsonlOut]
const listOutputs = [textOut, jsonOut, xmlOut]

const status: Command = {
  ...base,
  name: "status",
  path: ["status"],
  aliases: ["st"],
  help: "Show the status of every daemon",
  long_help: "Show the status of every daemon.\n\n.Lines starting with a dot must not become roff requests.",
  flags: [formatFlag(rootOutputs), verbose, jsonFlag],
  outputs: [textOut, { ...jsonOut, selector: { kind: "present", flag: "--json" } }, jsonlOut],
  select: "--format",
  exit_codes: rootExitCodes,
}

const daemonsList: Command = {
  ...base,
  name: "list",
  path: ["daemons", "list"],
  aliases: ["ls"],
  help: "List daemons",
  flags: [formatFlag(listOutputs, false), verbose],
  outputs: listOutputs,
  select: "--format",
  exit_codes: rootExitCodes,
}

const daemonsStop: Command = {
  ...base,
  name: "stop",
  path: ["daemons", "stop"],
  help: "Stop daemons",
  flags: [formatFlag(rootOutputs), verbose, signal],
  args: [{ name: "name", usage: "<name>...", required: true, variadic: true, help: "Daemons to stop" }],
  outputs: rootOutputs,
  select: "--format",
  exit_codes: [rootExitCodes[0]!, { code: 1, description: "A daemon did not stop" }, rootExitCodes[2]!],
}

const daemonsRestart: Command = {
  ...base,
  name: "restart",
  path: ["daemons", "restart"],
  help: "Restart one daemon",
  flags: [formatFlag(rootOutputs), verbose],
  args: [
    { name: "name", usage: "<name>", required: true, variadic: false },
    {
      name: "mode",
      usage: "[mode]",
      required: false,
      variadic: false,
      choices: [{ value: "graceful" }, { value: "hard" }],
    },
  ],
  outputs: rootOutputs,
  select: "--format",
  exit_codes: rootExitCodes,
}

const daemons: Command = {
  ...base,
  name: "daemons",
  path: ["daemons"],
  aliases: ["d"],
  help: "Manage daemons",
  flags: [formatFlag(rootOutputs), verbose],
  outputs: rootOutputs,
  select: "--format",
  exit_codes: rootExitCodes,
  subcommands: [daemonsList, daemonsStop, daemonsRestart],
}

const debugDump: Command = {
  ...base,
  name: "dump",
  path: ["debug", "dump"],
  help: "Dump internal state",
  flags: [formatFlag(rootOutputs), verbose],
  outputs: rootOutputs,
  select: "--format",
  exit_codes: rootExitCodes,
}

const debug: Command = {
  ...base,
  name: "debug",
  path: ["debug"],
  hide: true,
  help: "Internal debugging",
  flags: [formatFlag(rootOutputs), verbose, debugFlag],
  outputs: rootOutputs,
  select: "--format",
  exit_codes: rootExitCodes,
  subcommands: [debugDump],
}

export const spec: Spec = {
  name: "Demo",
  bin: "demo",
  version: "1.2.3",
  about: "A demo supervisor",
  long_about: "A demo supervisor.\nIt runs -- and watches -- background daemons.",
  sources: [],
  passthrough: [],
  root: {
    ...base,
    name: "demo",
    path: [],
    help: "A demo supervisor",
    flags: [formatFlag(rootOutputs), verbose, config],
    outputs: rootOutputs,
    select: "--format",
    exit_codes: rootExitCodes,
    subcommands: [status, daemons, debug],
  },
}
