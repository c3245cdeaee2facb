// The headings `supervisor --help` lists the commands under (usage's `help_heading`): the daily
// ones first, the usage-spec tools last, so that `spec ...` does not crowd them.

/** By top-level command; a command made of subcommands is listed, with them, under its own. */
export const COMMAND_HEADINGS: Readonly<Record<string, string>> = {
  start: "Daemons",
  stop: "Daemons",
  restart: "Daemons",
  enable: "Daemons",
  disable: "Daemons",
  status: "Daemons",
  list: "Daemons",
  run: "Daemons",
  wait: "Daemons",
  clean: "Daemons",
  logs: "Logs",
  supervisor: "Supervisor",
  web: "Supervisor",
  config: "Configuration",
  schema: "Configuration",
  spec: "Tools",
  usage: "Tools",
}
