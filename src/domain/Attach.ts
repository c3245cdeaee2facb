// The attach WebSocket's text messages (docs/attach.md): JSON control messages beside the binary
// frames of output (server to client) and keystrokes (client to server).
import { Schema } from "effect"

/** First message: the session is open on this run of the daemon. */
export const Attached = Schema.TaggedStruct("Attached", {
  id: Schema.String,
  pid: Schema.Int,
})

/** The client fell behind: this many bytes of output were not sent to it (the log has them). */
export const Dropped = Schema.TaggedStruct("Dropped", { bytes: Schema.Int })

/** The daemon's run ended; the server closes the socket after this message. */
export const Exited = Schema.TaggedStruct("Exited", {
  code: Schema.NullOr(Schema.Int),
  signal: Schema.NullOr(Schema.String),
})

export const AttachServerMessage = Schema.Union(Attached, Dropped, Exited).annotations({
  identifier: "AttachServerMessage",
})
export type AttachServerMessage = typeof AttachServerMessage.Type

/** The client's window size changed. */
export const AttachResize = Schema.TaggedStruct("Resize", {
  rows: Schema.Int.pipe(Schema.between(1, 65535)),
  cols: Schema.Int.pipe(Schema.between(1, 65535)),
})

export const AttachClientMessage = Schema.Union(AttachResize).annotations({
  identifier: "AttachClientMessage",
})
export type AttachClientMessage = typeof AttachClientMessage.Type

/** The WebSocket route of a daemon (under the API's base path). */
export const attachPath = (id: string): string => `/api/daemons/${encodeURIComponent(id)}/attach`
