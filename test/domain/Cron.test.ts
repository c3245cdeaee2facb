import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { CronExpression, cronProblem, RegexString, validRegex } from "../../src/domain/Cron.js"
import { decoder, left, messages, right } from "./helpers.js"

describe("cronProblem", () => {
  it.each([
    "0 */5 * * * *",
    "* * * * * *",
    "0 0 3 * * *",
    "30 15 10 1 1 *",
    "0 0 12 * * MON-FRI",
    "0 0 0 * * 0",
    "0 0 0 * * 7",
    "0,30 * * * * *",
    "0 0 9-17 * * 1-5",
    "  0 0 * * * *  ",
  ])("accepts the 6-field expression %j", (expression) => {
    expect(cronProblem(expression)).toBeUndefined()
  })

  it("rejects 5 fields, asking for 6 with their order", () => {
    expect(cronProblem("*/5 * * * *")).toBe(
      'cron schedule "*/5 * * * *" has 5 fields; write 6: second minute hour day month weekday (e.g. "0 */5 * * * *")',
    )
  })

  it("rejects other field counts", () => {
    expect(cronProblem("@daily")).toContain("has 1 field;")
    expect(cronProblem("")).toContain("has 1 field;")
    expect(cronProblem("0 0 0 * * * 2030")).toContain("has 7 fields")
  })

  it.each([
    ["61 * * * * *", "second"],
    ["0 60 * * * *", "minute"],
    ["0 0 24 * * *", "hour"],
    ["0 0 0 32 * *", "day"],
    ["0 0 0 * 13 *", "month"],
    ["0 0 0 * * 8", "dayOfWeek"],
  ])("rejects the out-of-range %j, naming the %s field", (expression, field) => {
    const problem = cronProblem(expression)
    expect(problem).toContain(`invalid cron schedule ${JSON.stringify(expression)}: `)
    expect(problem).toContain(field)
  })

  it("rejects syntax errors", () => {
    expect(cronProblem("*/0 * * * * *")).toContain("invalid cron schedule")
    expect(cronProblem("a b c d e f")).toContain("invalid cron schedule")
  })
})

describe("CronExpression schema", () => {
  const { ok, fail } = decoder(CronExpression)

  it("accepts a valid expression unchanged", () => {
    expect(ok("0 */5 * * * *")).toBe("0 */5 * * * *")
  })

  it("rejects a 5-field expression and a bad value", () => {
    expect(messages(fail("*/5 * * * *"))).toContain("has 5 fields")
    expect(messages(fail("0 0 25 * * *"))).toContain("invalid cron schedule")
    expect(messages(fail(5))).toContain("Expected string")
  })
})

describe("validRegex and RegexString", () => {
  it("compiles a valid regex", () => {
    const re = right(validRegex("listening on port (\\d+)"))
    expect(re).toBeInstanceOf(RegExp)
    expect(re.exec("listening on port 3000")?.[1]).toBe("3000")
  })

  it("rejects an invalid regex, quoting it", () => {
    expect(left(validRegex("("))).toMatch(/^invalid regular expression "\(": /)
    expect(Either.isLeft(validRegex("[a-"))).toBe(true)
    expect(Either.isLeft(validRegex("a{2,1}"))).toBe(true)
  })

  it("RegexString accepts valid patterns and rejects invalid ones", () => {
    expect(Schema.is(RegexString)("^ready$")).toBe(true)
    expect(Schema.is(RegexString)("(")).toBe(false)
    expect(messages(decoder(RegexString).fail("(unclosed"))).toContain(
      'invalid regular expression "(unclosed"',
    )
  })
})
