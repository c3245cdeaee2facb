import { Effect, Option, Schema } from "effect"
import type { PortHolder } from "../../process/sockets.js"
import type { PortCheck } from "./availability.js"

/**
 * Choosing a daemon's ports before it starts. Its `port.expect` ports are tried as declared; with
 * `port.bump` they all move up by the same offset until every one is free, so a set like
 * web 3000 + debugger 3001 keeps its spacing (3010, 3011), which configs often rely on.
 */

export const MAX_PORT = 65535

/** The ports a daemon gets, and how far they were shifted from `port.expect` (0 = as declared). */
export interface ResolvedPorts {
  readonly ports: ReadonlyArray<number>
  readonly offset: number
}

/** What went wrong, without the rendered message. */
export type ConflictFacts = {
  /** The declared `port.expect` ports. */
  readonly ports: ReadonlyArray<number>
  /** The first declared port that could not be bound. */
  readonly port: number
  /** "in-use", "permission" or an error code (see `PortCheck`). */
  readonly reason: string
  /** How many offsets were tried, the declared one included. */
  readonly attempts: number
  /** The `port.bump` setting. */
  readonly bump: boolean | number
  /** The process listening on `port`, when it could be found. */
  readonly holder?: PortHolder
}

/** A run's ports cannot be had: the facts of `ConflictFacts`, and the sentence users see. */
export class PortConflict extends Schema.TaggedError<PortConflict>()("PortConflict", {
  ports: Schema.Array(Schema.Int),
  port: Schema.Int,
  reason: Schema.String,
  attempts: Schema.Int,
  bump: Schema.Union(Schema.Boolean, Schema.Number),
  holder: Schema.optional(Schema.Struct({ pid: Schema.Int, name: Schema.String })),
  message: Schema.String,
}) {}

const listPorts = (ports: ReadonlyArray<number>): string =>
  ports.length === 1
    ? `port ${ports[0]}`
    : `ports ${ports.slice(0, -1).join(", ")} and ${ports[ports.length - 1]}`

const bumpEnabled = (bump: boolean | number): boolean =>
  bump === true || (typeof bump === "number" && bump >= 1)

/** The user-facing sentence for a conflict: which port, who holds it (if known) and what to do. */
export const conflictMessage = (conflict: ConflictFacts, holder = conflict.holder): string => {
  const { port, reason } = conflict
  if (reason === "permission") {
    return port < 1024
      ? `port ${port} cannot be bound: permission denied (ports below 1024 need root); choose a port of 1024 or above, or run the supervisor as root`
      : `port ${port} cannot be bound: permission denied; choose another port`
  }
  if (reason !== "in-use") return `port ${port} cannot be bound (${reason}); choose another port`
  const by = holder ? ` by ${holder.name} (pid ${holder.pid})` : ""
  const stop = holder ? "stop that process" : "stop the process using it"
  if (conflict.attempts <= 1) {
    const fix = bumpEnabled(conflict.bump)
      ? `${stop} or choose another port (port.bump cannot shift ports above ${MAX_PORT})`
      : `${stop}, choose another port, or set port.bump = true to shift the ports`
    return `port ${port} is already in use${by}; ${fix}`
  }
  const tried =
    conflict.bump === true
      ? `every offset up to port ${MAX_PORT}`
      : `the next ${conflict.attempts - 1} offsets`
  const fix =
    conflict.bump === true
      ? `${stop} or choose other ports`
      : `${stop}, choose other ports, or raise port.bump`
  return `${listPorts(conflict.ports)} and ${tried} are all in use (port ${port}${by}); ${fix}`
}

/** How many shifted offsets `port.bump` allows after the declared one. */
const bumpLimit = (bump: boolean | number): number =>
  bump === true ? Number.POSITIVE_INFINITY : bump === false ? 0 : Math.max(0, Math.floor(bump))

/** The first of `ports` that is not free, checked in order; `undefined` when all are free. */
const firstTaken = (
  ports: ReadonlyArray<number>,
  check: (port: number) => Effect.Effect<PortCheck>,
): Effect.Effect<{ readonly port: number; readonly reason: string } | undefined> =>
  Effect.gen(function* () {
    for (const port of ports) {
      const result = yield* check(port)
      if (!result.free) return { port, reason: result.reason }
    }
    return undefined
  })

/**
 * Finds free ports for `expect`: offset 0, then 1, 2, ... while `bump` allows and no port would pass
 * 65535. Only "in-use" is bumped past: a declared port that fails for another reason (permission)
 * fails at once, since shifting would silently turn a privileged port 80 into 1024. At later offsets
 * any unavailable port just means "try the next offset". The conflict names the declared port that
 * was busy; pass `holder` to also name the process holding it.
 */
export const resolvePorts = (
  expect: ReadonlyArray<number>,
  bump: boolean | number,
  check: (port: number) => Effect.Effect<PortCheck>,
  holder?: (port: number) => Effect.Effect<Option.Option<PortHolder>>,
): Effect.Effect<ResolvedPorts, PortConflict> =>
  Effect.gen(function* () {
    const declared = yield* firstTaken(expect, check)
    if (declared === undefined) return { ports: expect, offset: 0 }
    let attempts = 1
    if (declared.reason === "in-use") {
      const limit = Math.min(bumpLimit(bump), MAX_PORT - Math.max(...expect))
      for (let offset = 1; offset <= limit; offset++) {
        attempts++
        const ports = expect.map((port) => port + offset)
        if ((yield* firstTaken(ports, check)) === undefined) return { ports, offset }
      }
    }
    const found = holder ? Option.getOrUndefined(yield* holder(declared.port)) : undefined
    const facts: ConflictFacts = {
      ports: expect,
      ...declared,
      attempts,
      bump,
      ...(found ? { holder: found } : {}),
    }
    return yield* new PortConflict({ ...facts, message: conflictMessage(facts) })
  })
