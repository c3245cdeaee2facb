import { describe, expect, it } from "vitest"
import { missingValueProblem, VALUE_FLAGS } from "../../src/cli/argvChecks.js"
import { rootCommand } from "../../src/cli/main.js"
import { cliSpecKdl } from "../../src/usage/cli/cliSpec.js"

describe("VALUE_FLAGS", () => {
  it("is every flag of the CLI with a required value, as its usage spec declares them", () => {
    const kdl = cliSpecKdl(rootCommand, { version: "0.0.0-test" })
    const declared = new Set<string>()
    for (const m of kdl.matchAll(/flag "([^"]+) <[A-Z_]+>"/g))
      for (const name of (m[1] as string).split(" ")) declared.add(name)
    expect([...VALUE_FLAGS].sort()).toEqual([...declared].sort())
  })
})

describe("missingValueProblem", () => {
  it("names a value flag at the end, or followed by another long flag", () => {
    expect(missingValueProblem(["start", "--group"])).toBe("--group needs a value")
    expect(missingValueProblem(["start", "-g"])).toBe("-g needs a value")
    expect(missingValueProblem(["start", "--group", "--delay", "1"])).toBe(
      "--group needs a value (it is followed by --delay)",
    )
    expect(missingValueProblem(["logs", "web", "--since"])).toBe("--since needs a value")
  })

  it("accepts values, flags without values, and anything after --", () => {
    expect(missingValueProblem(["start", "--group", "web", "--delay", "1", "-f"])).toBeUndefined()
    expect(missingValueProblem(["logs", "-n", "5", "--grep", "-x"])).toBeUndefined()
    expect(missingValueProblem(["run", "x", "--", "grep", "--since"])).toBeUndefined()
    expect(missingValueProblem(["start", "--all", "--bump"])).toBeUndefined()
  })
})
