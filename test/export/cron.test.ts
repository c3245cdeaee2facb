import { describe, expect, it } from "vitest"
import { toFiveFields, toOnCalendar, toSevenFields } from "../../src/export/cron.js"

describe("cron schedules in the targets' forms", () => {
  it.each([
    ["0 30 2 * * 1-5", "Mon..Fri *-*-* 02:30:00"],
    ["0 */5 * * * *", "*-*-* *:00/5:00"],
    ["*/10 * * * * *", "*-*-* *:*:00/10"],
    ["0 0 9 1,15 * *", "*-*-01,15 09:00:00"],
    ["0 0 0 * 6 sun", "Sun *-06-* 00:00:00"],
  ])("%s → OnCalendar=%s", (cron, calendar) => {
    expect(toOnCalendar(cron)).toEqual({ value: calendar })
  })

  it("says what OnCalendar= cannot express", () => {
    expect(toOnCalendar("0 0 0 L * *")).toHaveProperty("problem")
    expect(toOnCalendar("0 0 1 15 * 1")).toHaveProperty("problem")
  })

  it("five fields when the seconds are 0; seven for Nomad", () => {
    expect(toFiveFields("0 30 2 * * 1-5")).toEqual({ value: "30 2 * * 1-5" })
    expect(toFiveFields("15 * * * * *")).toHaveProperty("problem")
    expect(toSevenFields("0 30 2 * * 1-5")).toBe("0 30 2 * * 1-5 *")
  })
})
