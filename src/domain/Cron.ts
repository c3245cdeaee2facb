import { Cron } from "croner"
import { Either, Schema } from "effect"

/** Checks a 6-field cron expression (second minute hour day month weekday). */
export const cronProblem = (expression: string): string | undefined => {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 6) {
    return `cron schedule ${JSON.stringify(expression)} has ${fields.length} field${fields.length === 1 ? "" : "s"}; write 6: second minute hour day month weekday (e.g. "0 */5 * * * *")`
  }
  try {
    new Cron(expression, { paused: true })
    return undefined
  } catch (e) {
    const detail = e instanceof Error ? e.message.replace(/^CronPattern:\s*/, "") : String(e)
    return `invalid cron schedule ${JSON.stringify(expression)}: ${detail}`
  }
}

export const CronExpression = Schema.String.pipe(
  Schema.filter((s) => cronProblem(s) ?? true, {
    jsonSchema: { pattern: "^\\s*(\\S+\\s+){5}\\S+\\s*$", examples: ["0 */5 * * * *"] },
  }),
  Schema.annotations({
    identifier: "CronExpression",
    description: "A cron expression with 6 fields: second minute hour day month weekday",
  }),
)

export const validRegex = (pattern: string): Either.Either<RegExp, string> => {
  try {
    return Either.right(new RegExp(pattern))
  } catch (e) {
    return Either.left(`invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`)
  }
}

/** A regular expression (JavaScript syntax) that must compile. */
export const RegexString = Schema.String.pipe(
  Schema.filter((s) => Either.match(validRegex(s), { onLeft: (m) => m, onRight: () => true }), {
    jsonSchema: {},
  }),
  Schema.annotations({ identifier: "Regex", description: "A regular expression (JavaScript syntax)" }),
)
