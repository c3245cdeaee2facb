import { Schema } from "effect"

/** One file of `supervisor export`: its path (relative, or under --out) and its text. */
export const ExportedFile = Schema.Struct({
  path: Schema.String,
  content: Schema.String,
}).annotations({ identifier: "ExportedFile" })

/** `--check`: the validator that ran and what it said, or none installed and how to install one. */
export const ExportCheck = Schema.Union(
  Schema.TaggedStruct("Checked", {
    validator: Schema.String,
    ok: Schema.Boolean,
    output: Schema.String,
  }),
  Schema.TaggedStruct("NoValidator", { install: Schema.String }),
).annotations({ identifier: "ExportCheck" })

/** `supervisor export ... --json`: the files, every key that did not map, and `--check`'s verdict. */
export const ExportOutput = Schema.Struct({
  files: Schema.Array(ExportedFile),
  warnings: Schema.Array(Schema.String),
  check: Schema.optional(ExportCheck),
}).annotations({ identifier: "ExportOutput" })
export type ExportOutput = typeof ExportOutput.Type
