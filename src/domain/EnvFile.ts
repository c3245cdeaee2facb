import { Schema } from "effect"

/** One env file as resolved: its absolute path, and whether it may be missing. */
export const EnvFileRef = Schema.Struct({
  path: Schema.String,
  optional: Schema.Boolean,
}).annotations({ identifier: "EnvFileRef" })
export type EnvFileRef = typeof EnvFileRef.Type

const EnvFilePath = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0 || 'must not be empty: write a path such as ".env"', {
    jsonSchema: { minLength: 1 },
  }),
).annotations({ description: "A dotenv file; relative to the config file's directory, `~` expands" })

const EnvFileEntry = Schema.Union(
  EnvFilePath,
  Schema.Struct({
    path: EnvFilePath,
    optional: Schema.optional(
      Schema.Boolean.annotations({ description: "A missing file is skipped instead of an error" }),
    ),
  }),
)

/** `env_file` as written: a path, or a list of paths and `{ path, optional }` tables. */
export const EnvFileOption = Schema.transform(
  Schema.Union(EnvFileEntry, Schema.Array(EnvFileEntry)).annotations({
    description:
      'Dotenv files read at each start, in order (later files win): a path, or a list of paths and { path = ".env.local", optional = true } tables. A missing file is a config error unless optional.',
  }),
  Schema.Array(Schema.typeSchema(EnvFileRef)),
  {
    strict: false,
    decode: (raw) =>
      (Array.isArray(raw) ? raw : [raw]).map((e: string | { path: string; optional?: boolean }) =>
        typeof e === "string"
          ? { path: e, optional: false }
          : { path: e.path, optional: e.optional ?? false },
      ),
    encode: (refs) => refs,
  },
)
