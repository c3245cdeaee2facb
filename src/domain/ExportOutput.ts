import { Schema } from "effect"

/** One file of `supervisor export`: its path (relative, or under --out) and its text. */
export const ExportedFile = Schema.Struct({
  path: Schema.String,
  content: Schema.String,
}).annotations({ identifier: "ExportedFile" })

/** `supervisor export ... --json`: the files, and every key that did not map to the target. */
export const ExportOutput = Schema.Struct({
  files: Schema.Array(ExportedFile),
  warnings: Schema.Array(Schema.String),
}).annotations({ identifier: "ExportOutput" })
export type ExportOutput = typeof ExportOutput.Type
