// A typed view of `parse-prometheus-text-format` (it ships no types): the parser the tests check
// the output of GET /metrics with, and the look-ups they use on what it parsed.
// @ts-expect-error the package has no type declarations; its shape is declared below
import parseUntyped from "parse-prometheus-text-format"

export interface ParsedFamily {
  readonly name: string
  readonly help: string
  readonly type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED"
  readonly metrics: ReadonlyArray<{ readonly value: string; readonly labels?: Record<string, string> }>
}

export const parsePrometheus = (text: string): ReadonlyArray<ParsedFamily> =>
  parseUntyped(text) as ReadonlyArray<ParsedFamily>

/** The value of the sample of `name` whose labels include `labels`; undefined when there is none. */
export const sampleValue = (
  families: ReadonlyArray<ParsedFamily>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined => {
  const m = families
    .find((f) => f.name === name)
    ?.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))
  return m === undefined ? undefined : Number(m.value)
}
