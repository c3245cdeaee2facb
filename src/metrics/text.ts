// The Prometheus text exposition format (version 0.0.4): HELP and TYPE lines, then one line per
// sample. https://prometheus.io/docs/instrumenting/exposition_formats/

export type MetricType = "counter" | "gauge"

/** One sample: its labels (name → value) and its value. */
export interface Sample {
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** A metric family: every sample of one metric name. */
export interface Family {
  readonly name: string
  readonly help: string
  readonly type: MetricType
  readonly samples: ReadonlyArray<Sample>
}

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** A label value as the format quotes it: backslash, double quote and newline escaped. */
export const escapeLabelValue = (value: string): string =>
  NEEDS_ESCAPE.test(value) ? value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : value
const NEEDS_ESCAPE = /[\\"\n]/

/** A HELP text: backslash and newline escaped. */
const escapeHelp = (text: string): string => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

/** A sample value: integers as they are, `+Inf`, `-Inf` and `NaN` as the format spells them. */
export const formatValue = (value: number): string =>
  Number.isFinite(value)
    ? String(value)
    : Number.isNaN(value)
      ? "NaN"
      : value === Infinity
        ? "+Inf"
        : value === -Infinity
          ? "-Inf"
          : String(value)

// a scrape writes thousands of samples: plain loops and concatenation, no arrays per sample
const labelText = (labels: Readonly<Record<string, string>>): string => {
  let out = ""
  for (const k in labels) out += `${out === "" ? "{" : ","}${k}="${escapeLabelValue(labels[k] as string)}"`
  return out === "" ? "" : `${out}}`
}

/** The families as the text format, ending with a newline. A family without samples is left out. */
export const render = (families: ReadonlyArray<Family>): string => {
  let out = ""
  for (const f of families) {
    if (f.samples.length === 0) continue
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`
    for (const s of f.samples) out += `${f.name}${labelText(s.labels)} ${formatValue(s.value)}\n`
  }
  return out
}
