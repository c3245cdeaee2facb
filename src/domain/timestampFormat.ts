import { Schema } from "effect"

// `settings.logs.timestamp_format`: the strftime subset `logs` renders its text timestamps with
// (pitchfork's setting, chrono's syntax). A stored timestamp is `YYYY-MM-DD HH:MM:SS`, local
// time, to the second: the specifiers cover what that holds.

/** The format of the stored timestamps; `logs` prints them as they are with it. */
export const DEFAULT_TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

const pad = (n: number, width = 2, fill = "0") => String(n).padStart(width, fill)

const dayOfYear = (d: Date) =>
  Math.round(
    (Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) - Date.UTC(d.getFullYear(), 0, 1)) / 86_400_000,
  ) + 1

const SPECIFIERS: Readonly<Record<string, (d: Date) => string>> = {
  Y: (d) => pad(d.getFullYear(), 4),
  y: (d) => pad(d.getFullYear() % 100),
  m: (d) => pad(d.getMonth() + 1),
  d: (d) => pad(d.getDate()),
  e: (d) => pad(d.getDate(), 2, " "),
  H: (d) => pad(d.getHours()),
  I: (d) => pad(d.getHours() % 12 === 0 ? 12 : d.getHours() % 12),
  M: (d) => pad(d.getMinutes()),
  S: (d) => pad(d.getSeconds()),
  p: (d) => (d.getHours() < 12 ? "AM" : "PM"),
  b: (d) => MONTHS[d.getMonth()]!,
  a: (d) => DAYS[d.getDay()]!,
  j: (d) => pad(dayOfYear(d), 3),
  F: (d) => `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`,
  T: (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`,
  "%": () => "%",
}

/** The first `%x` of `format` that is not a supported specifier, or undefined. */
export const unsupportedSpecifier = (format: string): string | undefined => {
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== "%") continue
    const spec = format[i + 1]
    if (spec === undefined || SPECIFIERS[spec] === undefined) return `%${spec ?? ""}`
    i++
  }
  return undefined
}

/** `format` applied to the local time `epochMillis` (its specifiers checked by the schema). */
export const formatTimestamp = (format: string, epochMillis: number): string => {
  const d = new Date(epochMillis)
  return format.replace(/%(.)/g, (all, spec: string) => SPECIFIERS[spec]?.(d) ?? all)
}

export const TimestampFormat = Schema.String.pipe(
  Schema.filter(
    (format) => {
      const bad = unsupportedSpecifier(format)
      return bad === undefined
        ? undefined
        : `${JSON.stringify(bad)} is not a supported specifier; use %Y %y %m %d %e %H %I %M %S %p %b %a %j %F %T or %% (e.g. "%m-%d %H:%M:%S")`
    },
    { jsonSchema: {} },
  ),
)
