import { Duration, Schema } from "effect"
import { RegexString } from "./Cron.js"
import { HumanDuration } from "./HumanDuration.js"
import { hasTemplate, templateProblem } from "./Template.js"

/** A TCP port number. */
export const Port = Schema.Int.pipe(Schema.between(1, 65535)).annotations({
  identifier: "Port",
  description: "A TCP port number (1-65535)",
  message: () => "expected a TCP port number between 1 and 65535",
})

/** A string that may hold templates (`{{ daemons.<name>.port }}`, ...); an unknown name is an error. */
export const TemplateString = Schema.String.pipe(
  Schema.filter((s) => templateProblem(s) ?? true, { jsonSchema: {} }),
  Schema.annotations({
    identifier: "TemplateString",
    description:
      "A string; templates such as {{ daemons.<name>.port }}, {{ daemon.port }} or {{ env.VAR }} render at start (docs/templates.md)",
  }),
)

/** A regex; templates are substituted before it is compiled, so only the template-free form must compile. */
const ReadyPattern = Schema.String.pipe(
  Schema.filter(
    (s) => {
      const problem = templateProblem(s)
      if (problem) return problem
      if (hasTemplate(s)) return true
      return Schema.is(RegexString)(s) ? true : `invalid regular expression ${JSON.stringify(s)}`
    },
    { jsonSchema: {} },
  ),
  Schema.annotations({
    description: "A regular expression matched against each output line (ANSI stripped)",
  }),
)

const timeout = Schema.optional(
  HumanDuration.annotations({
    description: "Give up waiting after this long; the daemon is then killed and the start fails",
  }),
)

const normalise = <From extends Schema.Schema.Any, To extends Schema.Schema.Any>(
  from: From,
  to: To,
  decode: (raw: Schema.Schema.Type<From>) => Schema.Schema.Encoded<To>,
) =>
  Schema.transform(from, to, {
    strict: false,
    decode,
    encode: (value) => value,
  })

export const ReadyOutput = Schema.Struct({ pattern: ReadyPattern, timeout })
export const ReadyOutputOption = normalise(
  Schema.Union(ReadyPattern, ReadyOutput).annotations({
    description:
      'Ready when an output line matches this regex. A string, or { pattern = "...", timeout = "30s" }. Supports templates.',
  }),
  Schema.typeSchema(ReadyOutput),
  (raw) => (typeof raw === "string" ? { pattern: raw } : raw),
)

/** Whether a URL is an http:// or https:// one (leading blanks allowed). */
export const isHttpUrl = (s: string): boolean => /^\s*https?:\/\//i.test(s)

/** An http:// or https:// URL; one that starts with a template may render to either. */
const HttpUrl = TemplateString.pipe(
  Schema.filter(
    (s) =>
      isHttpUrl(s) ||
      /^\s*\{\{/.test(s) ||
      `expected an http:// or https:// URL such as "http://127.0.0.1:3000/health", got ${JSON.stringify(s)}`,
    { jsonSchema: { pattern: "^\\s*(?:[hH][tT][tT][pP][sS]?://|\\{\\{)" } },
  ),
)
export const url = HttpUrl.annotations({ description: "The URL to poll; supports templates" })
export const statuses = Schema.Array(Schema.Int.pipe(Schema.between(100, 599))).annotations({
  description: "HTTP statuses that also mean ready, besides 2xx (e.g. [401])",
})
export const ReadyHttp = Schema.Struct({
  url,
  status: Schema.optionalWith(statuses, { default: () => [] }),
  timeout,
})
export const ReadyHttpOption = normalise(
  Schema.Union(url, Schema.Struct({ url, status: Schema.optional(statuses), timeout })).annotations({
    description:
      'Ready when this URL answers 2xx. A URL string, or { url = "...", status = [401], timeout = "30s" } where status lists more accepted codes. Supports templates.',
  }),
  Schema.typeSchema(ReadyHttp),
  (raw) => (typeof raw === "string" ? { url: raw, status: [] } : { ...raw, status: raw.status ?? [] }),
)

/** A string form of a port must render to one: a plain word such as "localhost" never does. */
const PortTemplate = TemplateString.pipe(
  Schema.filter(
    (s) =>
      hasTemplate(s) ||
      `expected a port number (without quotes) or a template such as "{{ daemons.db.port }}", got ${JSON.stringify(s)}`,
    { jsonSchema: {} },
  ),
)

export const PortOrTemplate = Schema.Union(Port, PortTemplate).annotations({
  description: 'A port number, or a template such as "{{ daemons.db.port }}"',
})
export const ReadyPort = Schema.Struct({ port: PortOrTemplate, timeout })
export const ReadyPortOption = normalise(
  Schema.Union(Port, PortTemplate, ReadyPort).annotations({
    description:
      'Ready when this TCP port accepts connections. A port, a template such as "{{ daemons.db.port }}", or { port = 5432, timeout = "30s" }.',
  }),
  Schema.typeSchema(ReadyPort),
  (raw) => (typeof raw === "object" ? raw : { port: raw }),
)

/**
 * `ready_delay`: a duration string ("2s", "500ms") as every other duration, or a number of
 * seconds as before. Seconds in the model.
 */
export const ReadyDelay = Schema.transform(Schema.Union(Schema.NonNegative, HumanDuration), Schema.Number, {
  strict: true,
  decode: (v) => (typeof v === "number" ? v : Duration.toMillis(v) / 1000),
  encode: (s) => s,
}).annotations({
  message: () => ({
    message: 'expected a duration such as "2s" or "500ms", or a number of seconds (0 or more)',
    override: true,
  }),
})

export const ReadyCmd = Schema.Struct({
  run: TemplateString.annotations({
    description: "Shell command run in the daemon's dir and env; supports templates",
  }),
  timeout,
})
export const ReadyCmdOption = normalise(
  Schema.Union(TemplateString, ReadyCmd).annotations({
    description:
      'Ready when this shell command exits 0. A command string, or { run = "...", timeout = "30s" }. Supports templates.',
  }),
  Schema.typeSchema(ReadyCmd),
  (raw) => (typeof raw === "string" ? { run: raw } : raw),
)

export { normalise }
