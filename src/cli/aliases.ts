// The command aliases of pitchfork's CLI (`ls` is `list`, `s` is `start`, …). @effect/cli has no
// command aliases, so argv is rewritten before anything reads it; the usage spec (and with it
// the help, the docs and the completions) lists them too.

export const ALIASES: Readonly<Record<string, string>> = {
  s: "start",
  kill: "stop",
  stat: "status",
  ls: "list",
  l: "logs",
  c: "clean",
  d: "disable",
  e: "enable",
  w: "wait",
  r: "run",
  sup: "supervisor",
  daemon: "daemons",
}

/** The aliases of subcommands, by command: `daemons rm` is `daemons remove`. */
export const SUBCOMMAND_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  daemons: { rm: "remove" },
  proxy: { rm: "remove" },
}

/** argv with an alias in the command's (or subcommand's) place replaced by what it stands for. */
export const withAliases = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = argv[2]
  const out =
    command !== undefined && Object.hasOwn(ALIASES, command)
      ? [...argv.slice(0, 2), ALIASES[command]!, ...argv.slice(3)]
      : argv
  const subs = SUBCOMMAND_ALIASES[out[2] ?? ""]
  const sub = out[3]
  return subs !== undefined && sub !== undefined && Object.hasOwn(subs, sub)
    ? [...out.slice(0, 3), subs[sub]!, ...out.slice(4)]
    : out
}
