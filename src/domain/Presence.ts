import { Schema } from "effect"

/** A live shell (the shell hook) or a project session (an IDE's or agent's), as the API shows it. */
export const PresenceEntry = Schema.Struct({
  kind: Schema.Literal("shell", "session"),
  pid: Schema.Int,
  directory: Schema.String,
  /** When it was recorded (RFC 3339). */
  since: Schema.String,
  /** Whether its process still runs (the same process: a reused pid is not); pitchfork's `alive`. */
  alive: Schema.Boolean,
}).annotations({ identifier: "PresenceEntry" })
export type PresenceEntry = typeof PresenceEntry.Type

export const PresenceList = Schema.Array(PresenceEntry).annotations({ identifier: "PresenceList" })

/** An absolute directory (a relative one means nothing to the supervisor, whose cwd is `/`). */
const AbsoluteDirectory = Schema.String.pipe(
  Schema.filter((s) => s.startsWith("/"), {
    message: () => "expected an absolute directory (starting with /)",
  }),
)

/** The shell hook's `supervisor cd`: the shell's pid and its directory now. */
export const ShellCdRequest = Schema.Struct({
  pid: Schema.Int.pipe(Schema.positive()),
  directory: AbsoluteDirectory,
  /**
   * When the hook ran, in µs on the machine's monotonic clock: a report older than the last one
   * recorded for the shell is ignored (reports may arrive out of order).
   */
  at: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
}).annotations({ identifier: "ShellCdRequest" })

/** What the hook prints (on stderr): autostops not reported yet, each once to one shell. */
export const ShellCdAnswer = Schema.Struct({
  notices: Schema.Array(Schema.String),
}).annotations({ identifier: "ShellCdAnswer" })

export const SessionEnter = Schema.Struct({
  pid: Schema.Int.pipe(Schema.positive()),
  directory: AbsoluteDirectory,
}).annotations({ identifier: "SessionEnter" })

export const SessionLeave = Schema.Struct({
  pid: Schema.Int.pipe(Schema.positive()),
  /** Only the session in this directory; every session of the pid when absent. */
  directory: Schema.optional(AbsoluteDirectory),
}).annotations({ identifier: "SessionLeave" })

export const SessionsLeft = Schema.Struct({ left: PresenceList }).annotations({ identifier: "SessionsLeft" })

/** The pid names no running process. */
export class ProcessGone extends Schema.TaggedError<ProcessGone>()("ProcessGone", {
  message: Schema.String,
}) {}
