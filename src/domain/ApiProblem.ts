import { Schema } from "effect"

/** The body of an API error outside the typed endpoints (a refused upgrade, the TCP guard): `{ _tag, message }`. */
export const ApiProblem = Schema.Struct({
  _tag: Schema.String,
  message: Schema.String,
}).annotations({ identifier: "ApiProblem" })
