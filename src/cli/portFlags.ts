import { Options } from "@effect/cli"

// The flags only (loaded at every start-up); what they do is in portOverrides.ts (loaded by
// `start` when it runs). Port overrides of `start`: `--expected-port P` (repeatable, or "3000,3001") replaces the
// configured `port.expect` of the started daemons, `--bump [N]` their `port.bump`.

export const portOptions = {
  expectedPort: Options.text("expected-port").pipe(
    Options.withDescription(
      "the TCP port(s) the daemon binds, checked before it starts and given to it as PORT (repeat it, or 3000,3001)",
    ),
    Options.repeated,
  ),
  bump: Options.text("bump").pipe(
    Options.withDescription(
      "when a port is taken, shift the ports until they are free: --bump N = at most N shifts, --bump alone = settings.supervisor.port_bump_attempts (10), --bump true = no limit",
    ),
    Options.optional,
  ),
}

/** The one flag whose value may be left out (@effect/cli has no such flags): `start --bump`, `run --bump`, `daemons add --bump`. */
export const OPTIONAL_VALUE = { commands: ["start", "run", "daemons add"], flag: "bump" } as const

/**
 * `--bump` takes an optional value: a bare `--bump` (at the end, or before another flag or a
 * daemon name) becomes `--bump ""` (the setting's attempts) before the arguments are parsed.
 */
export const withOptionalBumpValue = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = argv[2] === "daemons" ? `daemons ${argv[3]}` : argv[2]
  if (!(OPTIONAL_VALUE.commands as ReadonlyArray<string | undefined>).includes(command)) return argv
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    out.push(arg)
    if (arg === "--") {
      out.push(...argv.slice(i + 1))
      break
    }
    // a negative number is a bad value (reported as such), not an unknown option `-1`
    if (arg === `--${OPTIONAL_VALUE.flag}` && !/^(-?\d+|true|false)$/.test(argv[i + 1] ?? "")) out.push("")
  }
  return out
}
