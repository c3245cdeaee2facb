import { JSONSchema, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DaemonName, GLOBAL_NAMESPACE, Namespace, nameProblem } from "../../src/domain/Name.js"
import { decoder, messages } from "./helpers.js"

// The "Daemon naming rules" table of the spec: [rule, valid, invalid examples].
const RULES: ReadonlyArray<readonly [string, string, ReadonlyArray<string>, string]> = [
  ["no double dashes", "my-app", ["my--app"], "double dash"],
  ["no slashes", "api", ["api/v2"], "slash"],
  ["no spaces", "my_app", ["my app"], "spaces"],
  ["no parent references", "myapp", ["..", "foo..bar"], "parent reference"],
  ["no leading or trailing dash", "my-app", ["-app", "app-"], "start or end with a dash"],
  ["only ASCII letters, digits, _, - and .", "myapp123", ["café", "@", "my@app", "naïve", "日本"], "ASCII"],
]

const VALID = [...new Set(RULES.map(([, valid]) => valid)), "a", "A.b_c-9", "v1.2", ".hidden", "x-y-z"]
const INVALID = RULES.flatMap(([, , invalid]) => invalid)

describe("nameProblem", () => {
  for (const [rule, valid, invalid, phrase] of RULES) {
    it(`${rule}: accepts ${JSON.stringify(valid)}`, () => {
      expect(nameProblem(valid)).toBeUndefined()
    })
    for (const name of invalid) {
      it(`${rule}: rejects ${JSON.stringify(name)} naming the rule`, () => {
        expect(nameProblem(name)).toContain(phrase)
      })
    }
  }

  it("accepts other well-formed names", () => {
    for (const name of VALID) expect(nameProblem(name), name).toBeUndefined()
  })

  it("rejects the empty name", () => {
    expect(nameProblem("")).toBe("must not be empty")
  })

  it("treats any whitespace as a space", () => {
    expect(nameProblem("my\tapp")).toContain("spaces")
    expect(nameProblem(" app")).toContain("spaces")
  })

  it("says that -- is reserved for namespace encoding, quoting it as pitchfork does", () => {
    expect(nameProblem("my--app")).toContain("the reserved sequence '--' (a double dash encodes namespaces)")
  })

  it("quotes the offending character", () => {
    expect(nameProblem("café")).toContain('(found "é")')
    expect(nameProblem("@")).toContain('(found "@")')
    expect(nameProblem("a+b")).toContain('(found "+")')
  })

  it("rejects a triple dash and a dash next to the edge", () => {
    expect(nameProblem("a---b")).toContain("double dash")
    expect(nameProblem("-")).toContain("dash")
  })
})

describe.each([
  ["DaemonName", DaemonName, "daemon name"],
  ["Namespace", Namespace, "namespace"],
] as const)("%s schema", (_, schema, what) => {
  const { ok, fail } = decoder(schema)

  it("accepts every valid example", () => {
    for (const name of VALID) expect(ok(name)).toBe(name)
  })

  it("rejects every invalid example with a message naming the value and the rule", () => {
    for (const name of INVALID) {
      const message = messages(fail(name))
      expect(message).toContain(`invalid ${what} ${JSON.stringify(name)}:`)
      expect(message).toContain(nameProblem(name))
    }
  })

  it("rejects non-strings and the empty string", () => {
    expect(messages(fail(42))).toContain("Expected string")
    expect(messages(fail(""))).toContain("must not be empty")
  })

  it("encodes a name unchanged", () => {
    expect(Schema.encodeSync(schema)("my-app")).toBe("my-app")
  })

  it("agrees with its JSON Schema pattern except for '..', which supervisor checks itself", () => {
    const json = JSONSchema.make(schema) as { $defs: Record<string, { pattern: string }> }
    const pattern = new RegExp(Object.values(json.$defs)[0]!.pattern)
    for (const name of [...VALID, ...INVALID, ""]) {
      const expected = nameProblem(name) === undefined || name.includes("..")
      expect(pattern.test(name), name).toBe(expected)
    }
  })
})

describe("GLOBAL_NAMESPACE", () => {
  it("is the valid namespace 'global'", () => {
    expect(GLOBAL_NAMESPACE).toBe("global")
    expect(nameProblem(GLOBAL_NAMESPACE)).toBeUndefined()
  })
})
