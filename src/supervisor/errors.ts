import { Schema } from "effect"

/** A daemon ID the supervisor does not know (the API answers it with a 404). */
export class DaemonNotFound extends Schema.TaggedError<DaemonNotFound>()("DaemonNotFound", {
  id: Schema.String,
  message: Schema.String,
}) {}

export const daemonNotFound = (id: string) =>
  new DaemonNotFound({ id, message: `no daemon ${JSON.stringify(id)} is known to the supervisor` })
