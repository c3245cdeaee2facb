import { Schema } from "effect"

// Every configuration problem names the file, the line where known, the key path
// and a fix. One class per cause so that callers (and tests) can tell them apart.
const fields = {
  file: Schema.String,
  line: Schema.optional(Schema.Int),
  key: Schema.optional(Schema.String),
  message: Schema.String,
  hint: Schema.optional(Schema.String),
}

export class UnreadableFile extends Schema.TaggedError<UnreadableFile>()("UnreadableFile", fields) {}
export class TomlSyntaxError extends Schema.TaggedError<TomlSyntaxError>()("TomlSyntaxError", fields) {}
export class UnknownKey extends Schema.TaggedError<UnknownKey>()("UnknownKey", fields) {}
export class InvalidValue extends Schema.TaggedError<InvalidValue>()("InvalidValue", fields) {}
export class MissingRun extends Schema.TaggedError<MissingRun>()("MissingRun", fields) {}
export class InvalidDaemonName extends Schema.TaggedError<InvalidDaemonName>()("InvalidDaemonName", fields) {}
export class InvalidNamespace extends Schema.TaggedError<InvalidNamespace>()("InvalidNamespace", fields) {}
export class NamespaceMismatch extends Schema.TaggedError<NamespaceMismatch>()("NamespaceMismatch", fields) {}
export class GlobalNamespaceRequired extends Schema.TaggedError<GlobalNamespaceRequired>()(
  "GlobalNamespaceRequired",
  fields,
) {}
export class InvalidDependency extends Schema.TaggedError<InvalidDependency>()("InvalidDependency", fields) {}
export class DependencyCycle extends Schema.TaggedError<DependencyCycle>()("DependencyCycle", {
  ...fields,
  cycle: Schema.Array(Schema.String),
}) {}
export class InvalidGroupMember extends Schema.TaggedError<InvalidGroupMember>()(
  "InvalidGroupMember",
  fields,
) {}
export class MisplacedSlugs extends Schema.TaggedError<MisplacedSlugs>()("MisplacedSlugs", fields) {}
export class InvalidTemplate extends Schema.TaggedError<InvalidTemplate>()("InvalidTemplate", fields) {}
export class ConflictingKeys extends Schema.TaggedError<ConflictingKeys>()("ConflictingKeys", fields) {}
export class NamespaceCollision extends Schema.TaggedError<NamespaceCollision>()(
  "NamespaceCollision",
  fields,
) {}
export class InvalidEnvOverride extends Schema.TaggedError<InvalidEnvOverride>()(
  "InvalidEnvOverride",
  fields,
) {}
/** An `env_file` that does not exist (and is not optional), or that cannot be read. */
export class MissingEnvFile extends Schema.TaggedError<MissingEnvFile>()("MissingEnvFile", fields) {}
/** A line of an env file that is not dotenv syntax: `file` is the env file. */
export class InvalidEnvFile extends Schema.TaggedError<InvalidEnvFile>()("InvalidEnvFile", fields) {}

export const ConfigProblem = Schema.Union(
  UnreadableFile,
  TomlSyntaxError,
  UnknownKey,
  InvalidValue,
  MissingRun,
  InvalidDaemonName,
  InvalidNamespace,
  NamespaceMismatch,
  GlobalNamespaceRequired,
  InvalidDependency,
  DependencyCycle,
  InvalidGroupMember,
  MisplacedSlugs,
  InvalidTemplate,
  ConflictingKeys,
  NamespaceCollision,
  InvalidEnvOverride,
  MissingEnvFile,
  InvalidEnvFile,
)
export type ConfigProblem = typeof ConfigProblem.Type

/** The configuration could not be loaded: every problem found, not just the first. */
export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>()("ConfigInvalid", {
  problems: Schema.Array(ConfigProblem),
  warnings: Schema.Array(Schema.String),
}) {
  override get message(): string {
    return this.problems.map(formatProblem).join("\n")
  }
}

/** `file:line: key: message` and an indented hint. */
export const formatProblem = (p: ConfigProblem): string => {
  const where = p.line === undefined ? p.file : `${p.file}:${p.line}`
  const key = p.key === undefined ? "" : `${p.key}: `
  return `${where}: ${key}${p.message}${p.hint === undefined ? "" : `\n  hint: ${p.hint}`}`
}
