import { Schema } from "effect"

/**
 * Why a `{{ daemons.<name>.port }}` template in a config value cannot be rendered: the key
 * (`run`, `env.URL`, `ready_http`), its value as written, what is wrong and, when one is named,
 * the daemon. `message` is the sentence users see.
 */
export class TemplateError extends Schema.TaggedError<TemplateError>()("TemplateError", {
  key: Schema.String,
  template: Schema.String,
  /** `unknown_variable`, `unknown_daemon`, `no_port`, `invalid_regex` or `not_a_port`. */
  reason: Schema.Literal("unknown_variable", "unknown_daemon", "no_port", "invalid_regex", "not_a_port"),
  /** The qualified ID of the daemon the template names, if it names one. */
  daemon: Schema.optional(Schema.String),
  message: Schema.String,
}) {}
