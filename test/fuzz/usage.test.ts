/**
 * KDL usage specs (src/usage/): random documents of the language's words, mutated bytes of a
 * real spec, and any text at all parse into a spec or fail with a UsageSpecError; never a throw.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseSpecString } from "../../src/usage/index.js"
import { STACK_LINE } from "../e2e/harness.js"
import { hostileString, params, TIMEOUT, tried } from "./fuzz.js"

/** The example spec of docs/usage-spec.md: a seed for mutations. */
const EXAMPLE = /```kdl\n([\s\S]*?)```/.exec(
  readFileSync(join(__dirname, "../../docs/usage-spec.md"), "utf8"),
)![1]!

const outcomes = { spec: 0, error: 0 }

/** Parses `text`: "spec", or "error" after checking it is the typed error with readable problems. */
const parse = async (suite: string, text: string): Promise<void> => {
  tried(suite)
  const exit = await Effect.runPromiseExit(parseSpecString(text, { filename: "fuzz.kdl" }))
  if (Exit.isSuccess(exit)) {
    outcomes.spec++
    return
  }
  expect(Cause.isDie(exit.cause), `${JSON.stringify(text)}\n${Cause.pretty(exit.cause)}`).toBe(false)
  const errors = [...Cause.failures(exit.cause)]
  expect(errors.map((e) => e._tag)).toEqual(["UsageSpecError"])
  expect(errors[0]!.problems.length).toBeGreaterThan(0)
  expect(errors[0]!.message).not.toMatch(STACK_LINE)
  outcomes.error++
}

const WORDS = [
  "name",
  "bin",
  "version",
  "about",
  "long_about",
  "author",
  "license",
  "usage",
  "flag",
  "arg",
  "cmd",
  "alias",
  "choices",
  "choice",
  "output",
  "schema",
  "exit_code",
  "select",
  "include",
  "config",
  "complete",
  "mount",
  "flagset",
  "use",
  "default",
  "env",
  "help",
  "long_help",
  "hide",
  "global",
  "count",
  "var",
  "var_min",
  "var_max",
  "required",
  "negate",
  "deprecated",
  "before_help",
  "after_help",
  "example",
  "source_code_link_template",
  "file",
  "framing",
  "media_type",
  "subcommand_required",
]
const value: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("#true", "#false", "#null", "0", "-1", "1e400", "0x10", "#inf", "#nan", "1_000"),
  fc.constantFrom(
    '"-v --verbose"',
    '"-f --format <FMT>"',
    '"<name>..."',
    '"[x]"',
    '"--"',
    '"-"',
    '"<>"',
    '"-- <a>"',
    '"/etc/hostname"',
    '"/"',
    '"/nonexistent.kdl"',
    '"../../x.kdl"',
    '"x.kdl"',
    '#"raw "quote""#',
    '"""\nmulti\n"""',
  ),
  hostileString.map((s) => JSON.stringify(s)),
  fc.integer().map(String),
)
const entry = fc.oneof(
  value,
  fc.tuple(fc.constantFrom(...WORDS), value).map(([k, v]) => `${k}=${v}`),
)
const node: fc.Memo<string> = fc.memo((depth) =>
  fc
    .tuple(
      fc.constantFrom(...WORDS, "/-flag", "unknown_node", '"quoted node"'),
      fc.array(entry, { maxLength: 4 }),
      depth > 1
        ? fc.option(fc.array(node(depth - 1), { maxLength: 4 }), { nil: undefined })
        : fc.constant(undefined),
      fc.constantFrom("", " // comment", " /* c */", ";"),
    )
    .map(
      ([word, entries, children, tail]) =>
        `${word} ${entries.join(" ")}${children === undefined ? "" : ` {\n${children.join("\n")}\n}`}${tail}`,
    ),
)

describe("usage spec parser (fuzz)", () => {
  it(
    "documents of the language's words are a spec or a typed error",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(node(3), { maxLength: 8 }), (nodes) =>
          parse("KDL documents", nodes.join("\n")),
        ),
        params(150),
      )
    },
    TIMEOUT,
  )

  it(
    "mutated bytes of a real spec are a spec or a typed error",
    async () => {
      const edit = fc.record({
        at: fc.nat(),
        cut: fc.nat(8),
        insert: fc.string({ unit: "binary", maxLength: 4 }),
      })
      await fc.assert(
        fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
          let text = EXAMPLE
          for (const { at, cut, insert } of edits) {
            const i = at % (text.length + 1)
            text = text.slice(0, i) + insert + text.slice(i + cut)
          }
          return parse("mutated KDL", text)
        }),
        params(150),
      )
    },
    TIMEOUT,
  )

  it(
    "any text, and huge or deep documents, are a spec or a typed error",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.string({ unit: "binary", maxLength: 200 }), hostileString), (text) =>
          parse("any text as KDL", text),
        ),
        params(100),
      )
      for (const text of [
        `${"cmd a {\n".repeat(3000)}${"}\n".repeat(3000)}`,
        `flag "-a" ${"x=1 ".repeat(50_000)}`,
        `about "${"x".repeat(2_000_000)}"`,
        Array.from({ length: 5000 }, (_, i) => `flag "--f${i}"`).join("\n"),
        `${"/* ".repeat(10_000)}`,
        `cmd "${"a".repeat(100_000)}"`,
      ])
        await parse("huge or deep KDL", text)
      console.log(`fuzz: usage specs: ${outcomes.spec} parsed, ${outcomes.error} refused`)
    },
    TIMEOUT,
  )
})
