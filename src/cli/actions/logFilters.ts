// `logs --level`, `--field KEY=VALUE` and `--jq EXPR`: checked here, so that a mistake is a usage
// error naming the flag; the supervisor does the matching (src/logs/structured/filter.ts).
import { Option } from "effect"
import { compileJqFilter } from "../../logs/jq/eval.js"
import { parseFieldFilter } from "../../logs/structured/filter.js"
import type { LogsOptions } from "../args/logs.js"

/** The request's part of these flags, or why they cannot be used. */
export const structuredFlags = (
  o: Pick<LogsOptions, "level" | "field" | "jq">,
):
  | {
      level?: LogsOptions["level"] extends Option.Option<infer L> ? L : never
      fields?: Array<string>
      jq?: string
    }
  | string => {
  for (const f of o.field) {
    const parsed = parseFieldFilter(f)
    if (typeof parsed === "string") return parsed
  }
  const jq = Option.getOrUndefined(o.jq)
  if (jq !== undefined) {
    try {
      compileJqFilter(jq)
    } catch (e) {
      return `invalid --jq: ${(e as Error).message}`
    }
  }
  return {
    ...(Option.isSome(o.level) && { level: o.level.value }),
    ...(o.field.length > 0 && { fields: [...o.field] }),
    ...(jq !== undefined && { jq }),
  }
}
