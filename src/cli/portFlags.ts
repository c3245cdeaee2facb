import { Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { UsageError } from "./resolve.js"

// Port overrides of `start`: `--expected-port P` (repeatable, or "3000,3001") replaces the
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
      "when a port is taken, shift the ports until they are free: --bump alone = no limit, --bump N = at most N shifts",
    ),
    Options.optional,
  ),
}

export interface PortFlags {
  readonly expectedPort: ReadonlyArray<string>
  readonly bump: Option.Option<string>
}

/** The port overrides the flags give: `expect` and `bump` each when set. */
export interface PortOverrides {
  readonly expect: Option.Option<ReadonlyArray<number>>
  readonly bump: Option.Option<boolean | number>
}

const usage = (message: string) => new UsageError({ message })

const parsePort = (text: string): Either.Either<number, UsageError> => {
  const port = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
  return Number.isInteger(port) && port >= 1 && port <= 65535
    ? Either.right(port)
    : Either.left(usage(`--expected-port ${JSON.stringify(text)}: expected a TCP port number (1-65535)`))
}

const parseBump = (text: string): Either.Either<boolean | number, UsageError> => {
  if (text === "true") return Either.right(true)
  if (text === "false") return Either.right(false)
  if (/^\d+$/.test(text)) return Either.right(Number(text))
  return Either.left(
    usage(`--bump ${JSON.stringify(text)}: expected a number of attempts, or nothing (no limit)`),
  )
}

export const portOverrides = (flags: PortFlags) =>
  Effect.gen(function* () {
    const ports: Array<number> = []
    for (const value of flags.expectedPort)
      for (const part of value.split(",")) ports.push(yield* parsePort(part))
    const bump = Option.isSome(flags.bump) ? Option.some(yield* parseBump(flags.bump.value)) : Option.none()
    return { expect: ports.length > 0 ? Option.some(ports) : Option.none(), bump } satisfies PortOverrides
  })

/** The definition with the port overrides applied; a daemon without ports ignores a lone `--bump`. */
export const withPorts = (def: DaemonDefinition, o: PortOverrides): DaemonDefinition => {
  const current = def.config.port
  const expect = Option.getOrElse(o.expect, () => current?.expect ?? [])
  if (expect.length === 0) return def
  const bump = Option.getOrElse(o.bump, () => current?.bump ?? false)
  if (Option.isNone(o.expect) && Option.isNone(o.bump)) return def
  return { ...def, config: new DaemonConfig({ ...def.config, port: { expect, bump } }) }
}

/** A lone `--bump` needs a daemon with ports: say so rather than ignore the flag. */
export const checkBumpApplies = (defs: ReadonlyArray<DaemonDefinition>, o: PortOverrides) =>
  Option.isSome(o.bump) &&
  Option.isNone(o.expect) &&
  !defs.some((d) => (d.config.port?.expect.length ?? 0) > 0)
    ? Effect.fail(
        usage(
          "--bump: none of the daemons being started has ports; set `port` in its config or add --expected-port",
        ),
      )
    : Effect.void

/**
 * `--bump` takes an optional value: a bare `--bump` (at the end, or before another flag or a
 * daemon name) becomes `--bump true` before the arguments are parsed.
 */
export const withOptionalBumpValue = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (argv[2] !== "start") return argv
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    out.push(arg)
    if (arg === "--") {
      out.push(...argv.slice(i + 1))
      break
    }
    if (arg === "--bump" && !/^(\d+|true|false)$/.test(argv[i + 1] ?? "")) out.push("true")
  }
  return out
}
