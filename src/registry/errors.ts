import { Schema } from "effect"

// The failures of the project registry (ProjectRegistry.ts): the facts, and the sentence users see.

/** A project's configuration files cannot be read: `problem` says which file and what is wrong. */
export class ProjectUnreadable extends Schema.TaggedError<ProjectUnreadable>()("ProjectUnreadable", {
  /** The project directory. */
  dir: Schema.String,
  /** The namespace it was looked up under, when it was. */
  namespace: Schema.optional(Schema.String),
  problem: Schema.String,
  message: Schema.String,
}) {}

/** `register` was given a directory it cannot register: not absolute, or no project there. */
export class RegisterRefused extends Schema.TaggedError<RegisterRefused>()("RegisterRefused", {
  dir: Schema.String,
  reason: Schema.Literal("not_absolute", "no_config"),
  message: Schema.String,
}) {}

/** `forget` was given a namespace it cannot forget: unknown, or declared in the user config. */
export class NamespaceNotForgotten extends Schema.TaggedError<NamespaceNotForgotten>()(
  "NamespaceNotForgotten",
  {
    name: Schema.String,
    reason: Schema.Literal("unknown", "in_user_config"),
    message: Schema.String,
  },
) {}
