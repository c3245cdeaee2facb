// What the fuzz tests share: the seed and the number of runs (bounded in `npm test`, FUZZ_RUNS in
// `npm run test:fuzz`), a count of the inputs tried, and generators of hostile strings.
import fc from "fast-check"
import { afterAll } from "vitest"

/** FUZZ_SEED replays a failing run; fast-check prints the seed and the shrunk input on a failure. */
export const SEED = Number(process.env.FUZZ_SEED ?? 23)

/** The runs of one property: `bounded` in the normal suite, scaled up to FUZZ_RUNS in the long run. */
export const runs = (bounded: number): number => {
  const full = Number(process.env.FUZZ_RUNS ?? 0)
  return full > 0 ? Math.max(bounded, full) : bounded
}

/** A test's time limit: the suite's default when bounded, ten minutes in the long run. */
export const TIMEOUT = Number(process.env.FUZZ_RUNS ?? 0) > 0 ? 600_000 : 60_000

const counts = new Map<string, number>()
/** Counts one input of a suite (reported at the end of the file, for docs/reliability.md). */
export const tried = (suite: string): void => {
  counts.set(suite, (counts.get(suite) ?? 0) + 1)
}
afterAll(() => {
  for (const [suite, n] of counts) console.log(`fuzz: ${suite}: ${n} inputs (seed ${SEED})`)
})

/** fast-check's parameters of a property of `bounded` runs (at most `cap` in the long run). */
export const params = (bounded: number, cap = Number.POSITIVE_INFINITY): fc.Parameters<unknown> => ({
  seed: SEED,
  numRuns: Math.min(runs(bounded), Math.max(bounded, cap)),
})

/** Strings a hostile client or user tries: traversal, encodings, NUL, control bytes, unicode, huge. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "..",
    "../..",
    "../../x",
    "..%2F..%2Fx",
    "%2e%2e%2f%2e%2e%2fx",
    "/etc/passwd",
    "a\u0000b",
    "\u0000",
    "%00",
    "app/../../x",
    "ns/name/extra",
    "💥/🚀",
    "名前/デーモン",
    "\u202e/evil",
    "a".repeat(5000),
    " ",
    "",
    "\r\n",
    "{{ daemons.x.port }}",
    "$(touch /tmp/sv-fuzz-pwned)",
    "`touch /tmp/sv-fuzz-pwned`",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ maxLength: 300 }).map((s) => s.repeat(20)),
)
