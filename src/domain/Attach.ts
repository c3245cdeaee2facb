import { Schema } from "effect"

// The JSON messages of the attach WebSocket (`GET /api/daemons/{id}/attach`, docs/attach.md):
// text frames, one message each; the daemon's output and the keystrokes are binary frames.

/** First message from the supervisor: the session is open on this run of the daemon. */
export const AttachAttached = Schema.TaggedStruct("Attached", {
  id: Schema.String,
  pid: Schema.Int,
}).annotations({ identifier: "AttachAttached" })

/** The client fell behind: `bytes` of output were not sent to it (they are in the log). */
export const AttachDropped = Schema.TaggedStruct("Dropped", {
  bytes: Schema.NonNegativeInt,
}).annotations({ identifier: "AttachDropped" })

/** The daemon's run ended; the supervisor closes the socket after it. */
export const AttachExited = Schema.TaggedStruct("Exited", {
  code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
}).annotations({ identifier: "AttachExited" })

/** A message of the supervisor to an attached client. */
export const AttachServerMessage = Schema.Union(AttachAttached, AttachDropped, AttachExited).annotations({
  identifier: "AttachServerMessage",
})
export type AttachServerMessage = typeof AttachServerMessage.Type

/** The client's window size: the daemon's terminal takes it. */
export const AttachResize = Schema.TaggedStruct("Resize", {
  rows: Schema.Int.pipe(Schema.between(1, 65535)),
  cols: Schema.Int.pipe(Schema.between(1, 65535)),
}).annotations({ identifier: "AttachResize" })

/** A message of a client to the supervisor. */
export const AttachClientMessage = Schema.Union(AttachResize).annotations({
  identifier: "AttachClientMessage",
})
export type AttachClientMessage = typeof AttachClientMessage.Type

/** The body of a refusal before the upgrade (404, 409, 401, 403): the API's problem body. */
export const AttachRefusal = Schema.Struct({
  _tag: Schema.String,
  message: Schema.String,
}).annotations({ identifier: "AttachRefusal" })
