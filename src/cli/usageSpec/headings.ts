import type { Complete } from "../../usage/model.js"

// The headings `supervisor --help` lists the commands under (usage's `help_heading`): the daily
// ones first, the usage-spec tools last, so that `spec ...` does not crowd them.

/**
 * Commands made of subcommands that also run alone (`supervisor settings` prints them all,
 * `supervisor daemons` lists them); the others need a subcommand (usage's `subcommand_required`).
 */
export const RUNS_ALONE: ReadonlySet<string> = new Set(["settings", "daemons"])

/** By top-level command; a command made of subcommands is listed, with them, under its own. */
export const COMMAND_HEADINGS: Readonly<Record<string, string>> = {
  start: "Daemons",
  stop: "Daemons",
  restart: "Daemons",
  up: "Daemons",
  down: "Daemons",
  enable: "Daemons",
  disable: "Daemons",
  scale: "Daemons",
  send: "Daemons",
  graph: "Daemons",
  why: "Daemons",
  status: "Daemons",
  list: "Daemons",
  run: "Daemons",
  wait: "Daemons",
  clean: "Daemons",
  worktree: "Daemons",
  logs: "Logs",
  attach: "Daemons",
  events: "Logs",
  supervisor: "Supervisor",
  boot: "Supervisor",
  web: "Supervisor",
  tui: "Supervisor",
  proxy: "Supervisor",
  activate: "Shell",
  project: "Shell",
  config: "Configuration",
  settings: "Configuration",
  daemons: "Configuration",
  export: "Configuration",
  schema: "Configuration",
  import: "Configuration",
  spec: "Tools",
  mcp: "Tools",
  usage: "Tools",
  completion: "Tools",
}

/**
 * The values the completion scripts ask the CLI for (usage's `complete` nodes, matched by the
 * argument's or the flag value's name): daemon IDs, group names and setting keys. The hidden
 * `supervisor complete` prints them without starting the supervisor (src/cli/complete.ts).
 */
export const COMPLETERS: ReadonlyArray<Complete> = [
  { name: "id", run: "supervisor complete daemons", descriptions: false },
  { name: "group", run: "supervisor complete groups", descriptions: false },
  { name: "key", run: "supervisor complete settings", descriptions: false },
]
