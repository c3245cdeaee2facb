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
}

/** argv with an alias in the command's place replaced by the command it stands for. */
export const withAliases = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = argv[2]
  return command !== undefined && Object.hasOwn(ALIASES, command)
    ? [...argv.slice(0, 2), ALIASES[command]!, ...argv.slice(3)]
    : argv
}
