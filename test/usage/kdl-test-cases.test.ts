import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseKdlDocument } from "../../src/usage/kdl/parse.js"
import { canonicalKdl } from "./kdlCanonical.js"

// The official KDL 2.0 test suite (kdl-org/kdl, tests/test_cases; CC BY-SA 4.0, see
// kdl-test-cases/LICENSE.md): every input with an expected_kdl file must parse and print, in
// the suite's canonical form, exactly as expected; every other one (`_fail`) must be refused.

const DIR = join(import.meta.dirname, "kdl-test-cases")
const inputs = readdirSync(join(DIR, "input"))
  .filter((f) => f.endsWith(".kdl"))
  .sort()
const read = (...parts: Array<string>) => readFileSync(join(DIR, ...parts), "utf8")

const valid = inputs.filter((f) => existsSync(join(DIR, "expected_kdl", f)))
const invalid = inputs.filter((f) => !existsSync(join(DIR, "expected_kdl", f)))

describe("the KDL 2.0 test suite (kdl-org/kdl)", () => {
  it("is all here: 336 inputs, 241 with an expected output, the rest named _fail", () => {
    expect([inputs.length, valid.length]).toEqual([336, 241])
    expect(invalid.every((f) => f.endsWith("_fail.kdl"))).toBe(true)
    expect(valid.some((f) => f.endsWith("_fail.kdl"))).toBe(false)
  })

  it.each(valid)("reads %s as expected", (file) => {
    const result = parseKdlDocument(read("input", file), { detail: true })
    if (!result.ok) throw new Error(`line ${result.line}: ${result.message}`)
    expect(canonicalKdl(result.nodes)).toBe(read("expected_kdl", file))
  })

  it.each(invalid)("refuses %s", (file) => {
    expect(parseKdlDocument(read("input", file)).ok).toBe(false)
  })
})
