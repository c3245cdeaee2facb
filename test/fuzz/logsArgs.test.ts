/**
 * `logs --since/--until/--grep/--regex` values through the CLI's checks, at unit level for the
 * bulk (test/fuzz/supervisor.test.ts sends a few through the built CLI): every value is either
 * a time, a filter, or a clear message; nothing throws.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { parseSince } from "../../src/api/tailQuery.js"
import { parseTimeArg } from "../../src/cli/actions/logs.js"
import { parseHumanDuration } from "../../src/domain/HumanDuration.js"
import { makeMatcher } from "../../src/logs/reader.js"
import { hostileString, params, TIMEOUT, tried } from "./fuzz.js"

const NOW = Date.parse("2026-06-01T12:00:00Z")

/** Values a user types after --since/--until: durations, dates, numbers, and anything at all. */
const timeValue: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.oneof(
        fc.nat(),
        fc.double({ min: 0, noNaN: true }).map(String),
        // huge values: up to 400 digits
        fc.integer({ min: 1, max: 400 }).map((n) => "9".repeat(n)),
      ),
      fc.constantFrom("ms", "s", "min", "m", "h", "d", "w", "M", "y", "years", "µs", "ns", "parsecs", ""),
      fc.constantFrom("", " ago", " ", "  ago"),
    )
    .map(([n, unit, tail]) => `${n}${unit}${tail}`),
  fc
    .date({ noInvalidDate: false })
    .map((d) => (Number.isNaN(d.getTime()) ? "Invalid Date" : d.toISOString())),
  fc.date().map((d) => d.toISOString().replace("T", " ").slice(0, 19)),
  fc.stringMatching(/^[0-9 :T.\-+Z]{0,30}$/),
  hostileString,
)

describe("logs --since / --until (fuzz)", () => {
  it(
    "a time value is a finite time or a message that quotes it; never a throw",
    () => {
      fc.assert(
        fc.property(timeValue, (value) => {
          tried("logs --since/--until (parser)")
          const parsed = parseTimeArg(value, NOW)
          if (Either.isRight(parsed))
            expect(Number.isFinite(parsed.right), `${value} -> ${parsed.right}`).toBe(true)
          else expect(parsed.left).toContain(JSON.stringify(value))
        }),
        params(300),
      )
    },
    TIMEOUT,
  )

  it(
    "a duration is finite milliseconds or a message; never a throw",
    () => {
      fc.assert(
        fc.property(timeValue, (value) => {
          tried("durations (parser)")
          const parsed = parseHumanDuration(value)
          if (Either.isRight(parsed))
            expect(Number.isFinite(parsed.right), `${value} -> ${parsed.right}`).toBe(true)
          else expect(parsed.left.length).toBeGreaterThan(0)
        }),
        params(300),
      )
    },
    TIMEOUT,
  )

  it(
    "the API's tail `since` is a finite time or a message",
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            timeValue,
            fc.integer({ min: 1, max: 400 }).map((n) => "9".repeat(n)),
          ),
          (value) => {
            tried("/api/logs/{id}/tail since (parser)")
            const parsed = parseSince(value, NOW)
            if (Either.isRight(parsed))
              expect(Number.isFinite(parsed.right), `${value} -> ${parsed.right}`).toBe(true)
            else expect(parsed.left).toContain("since")
          },
        ),
        params(300),
      )
    },
    TIMEOUT,
  )
})

describe("logs --grep / --regex (fuzz)", () => {
  const message = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: "grapheme", maxLength: 40 }))

  it(
    "--grep is a literal substring, whatever characters it holds",
    () => {
      fc.assert(
        fc.property(
          fc.oneof(hostileString, fc.constantFrom("(", "[", "\\", ".*", "a+b", "$^", "?", "{2}", "|")),
          message,
          (grep, text) => {
            tried("logs --grep (matcher)")
            // no escape bytes: the matcher strips colour codes from what it tests
            const line = `${text.replaceAll("\u001b", "")}`
            const keep = makeMatcher({ grep, caseSensitive: true })
            const expected = grep === "" || line.includes(grep)
            expect(keep(line) !== undefined, `${JSON.stringify(grep)} in ${JSON.stringify(line)}`).toBe(
              expected,
            )
            expect(keep(`x${grep}y`)).toBeDefined()
          },
        ),
        params(300),
      )
    },
    TIMEOUT,
  )

  it(
    "--regex compiles or is refused the same way by the CLI and the supervisor",
    () => {
      fc.assert(
        fc.property(
          fc.oneof(hostileString, fc.stringMatching(/^[()[\]{}*+?.\\^$|a-c0-9,:<>=!-]{0,12}$/)),
          (regex) => {
            tried("logs --regex (compile)")
            const compile = (flags: string) => {
              try {
                return new RegExp(regex, flags) !== undefined
              } catch {
                return false
              }
            }
            // the CLI checks without flags; the supervisor compiles with `i` unless --case-sensitive
            expect(compile(""), regex).toBe(compile("i"))
          },
        ),
        params(300),
      )
    },
    TIMEOUT,
  )
})
