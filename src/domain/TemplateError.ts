import { Schema } from "effect"

/**
 * Why a template in a config value cannot be rendered (docs/templates.md): the key (`run`,
 * `env.URL`, `ready_http`, `hooks.on_ready`), its value as written, what is wrong and, when one
 * is named, the daemon. `message` is the sentence users see.
 */
export class TemplateError extends Schema.TaggedError<TemplateError>()("TemplateError", {
  key: Schema.String,
  template: Schema.String,
  /**
   * `unknown_variable`, `unknown_daemon`, `no_port`, `no_proxy_url` (no slug names the daemon, or
   * the proxy is off), `unset_env` (`{{ env.VAR }}` of a variable the environment lacks),
   * `invalid_regex` or `not_a_port`.
   */
  reason: Schema.Literal(
    "unknown_variable",
    "unknown_daemon",
    "no_port",
    "no_proxy_url",
    "unset_env",
    "invalid_regex",
    "not_a_port",
  ),
  /** The qualified ID of the daemon the template names, if it names one. */
  daemon: Schema.optional(Schema.String),
  message: Schema.String,
}) {}
