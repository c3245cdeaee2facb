// The command aliases of pitchfork's CLI: `ls` is `list`, `kill` is `stop`. @effect/cli has no
// command aliases, so argv is rewritten before it parses it; the usage spec lists them too.

export const ALIASES: Readonly<Record<string, string>> = { ls: "list", kill: "stop" }

/** argv with an alias in the command's place replaced by the command it stands for. */
export const withAliases = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = argv[2]
  return command !== undefined && Object.hasOwn(ALIASES, command)
    ? [...argv.slice(0, 2), ALIASES[command]!, ...argv.slice(3)]
    : argv
}
