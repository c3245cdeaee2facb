import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

export class DaemonNotFound extends Schema.TaggedError<DaemonNotFound>()(
  "DaemonNotFound",
  { id: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 }),
) {}

export const daemonNotFound = (id: string) =>
  new DaemonNotFound({ id, message: `no daemon ${JSON.stringify(id)} is known to the supervisor` })
