import { constants } from "node:os"
import { Either, ParseResult, Schema } from "effect"
import { decodeWith } from "./parse.js"

/** What a shell reports for a process killed by `signal`: 128 + its number (143 for SIGTERM). */
export const signalExitStatus = (signal: string): number | undefined => {
  const n = (constants.signals as Record<string, number | undefined>)[signal]
  return n === undefined ? undefined : 128 + n
}

export const STOP_SIGNALS = ["SIGTERM", "SIGINT", "SIGQUIT", "SIGHUP", "SIGUSR1", "SIGUSR2"] as const
export type StopSignal = (typeof STOP_SIGNALS)[number]

/** Accepts a signal with or without the `SIG` prefix, in any case. */
export const parseStopSignal = (input: string): Either.Either<StopSignal, string> => {
  const upper = input.trim().toUpperCase()
  const name = upper.startsWith("SIG") ? upper : `SIG${upper}`
  const found = STOP_SIGNALS.find((s) => s === name)
  return found
    ? Either.right(found)
    : Either.left(`unknown stop signal ${JSON.stringify(input)}; use one of ${STOP_SIGNALS.join(", ")}`)
}

/** A stop signal name as written (`TERM`, `SIGTERM`), normalised to the `SIG` form. */
export const StopSignalName = Schema.transformOrFail(
  Schema.String.annotations({
    identifier: "StopSignalName",
    message: () => `expected a signal name: one of ${STOP_SIGNALS.join(", ")}`,
    description: `One of ${STOP_SIGNALS.join(", ")}; the SIG prefix may be left out`,
    jsonSchema: {
      type: "string",
      enum: [...STOP_SIGNALS, ...STOP_SIGNALS.map((s) => s.slice(3))],
    },
  }),
  Schema.Literal(...STOP_SIGNALS),
  {
    strict: true,
    decode: decodeWith(parseStopSignal),
    encode: ParseResult.succeed,
  },
)
