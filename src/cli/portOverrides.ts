import { Effect, Either, Option } from "effect"
import { UsageError } from "../control/selection.js"

// What `start --expected-port P --bump [N]` does to the definitions it starts (flags: portFlags.ts).

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

const parsePort = (text: string, flag: string): Either.Either<number, UsageError> => {
  const port = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
  return Number.isInteger(port) && port >= 1 && port <= 65535
    ? Either.right(port)
    : Either.left(usage(`${flag} ${JSON.stringify(text)}: expected a TCP port number (1-65535)`))
}

// a bare `--bump` arrives as "" (portFlags.ts): settings.supervisor.port_bump_attempts shifts
const parseBump = (text: string, attempts: number): Either.Either<boolean | number, UsageError> => {
  if (text === "") return Either.right(attempts)
  if (text === "true") return Either.right(true)
  if (text === "false") return Either.right(false)
  if (/^\d+$/.test(text)) return Either.right(Number(text))
  return Either.left(
    usage(
      `--bump ${JSON.stringify(text)}: expected a number of attempts, true (no limit), or nothing (settings.supervisor.port_bump_attempts)`,
    ),
  )
}

/**
 * `bumpAttempts`: what a bare `--bump` allows (`settings.supervisor.port_bump_attempts`);
 * `portFlag`: the name of the ports flag, for messages (`daemons add` calls it `--port`).
 */
export const portOverrides = (flags: PortFlags, bumpAttempts: number, portFlag = "--expected-port") =>
  Effect.gen(function* () {
    const ports: Array<number> = []
    for (const value of flags.expectedPort)
      for (const part of value.split(",")) ports.push(yield* parsePort(part, portFlag))
    const bump = Option.isSome(flags.bump)
      ? Option.some(yield* parseBump(flags.bump.value, bumpAttempts))
      : Option.none()
    return { expect: ports.length > 0 ? Option.some(ports) : Option.none(), bump } satisfies PortOverrides
  })
