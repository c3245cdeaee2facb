// A daemon's 6-field cron schedule (second minute hour day month weekday) in the forms the
// targets take: systemd's OnCalendar=, Kubernetes' 5 fields, Nomad's 7 fields (with a year).

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

/** A weekday number (0-7) or name (`mon`) as a number, or undefined. */
const dayNumber = (s: string): number | undefined => {
  const byName = DAY_NAMES.indexOf(s.toLowerCase())
  if (byName >= 0) return byName
  return /^\d$/.test(s) && Number(s) <= 7 ? Number(s) : undefined
}

const ONLY_SIMPLE = /^[\d*,/-]+$/

/**
 * One numeric cron field in systemd's calendar syntax: `*`, `5`, `1,2`, `1-5` → `1..5`,
 * `*\/15` → `first/15`, `10/5`. A step over a range has no systemd form: undefined.
 */
const calendarField = (field: string, first: number, width: number): string | undefined => {
  if (!ONLY_SIMPLE.test(field)) return undefined
  const pad = (n: string) => n.padStart(width, "0")
  const parts = field.split(",").map((part) => {
    if (part === "*") return "*"
    const step = /^(\*|\d+)\/(\d+)$/.exec(part)
    if (step) return `${step[1] === "*" ? pad(String(first)) : pad(step[1]!)}/${step[2]}`
    const range = /^(\d+)-(\d+)$/.exec(part)
    if (range) return `${pad(range[1]!)}..${pad(range[2]!)}`
    return /^\d+$/.test(part) ? pad(part) : undefined
  })
  return parts.some((p) => p === undefined) ? undefined : parts.join(",")
}

/** The weekday field as systemd names (`Mon..Fri`), "" for any day. */
const calendarWeekdays = (field: string): string | undefined => {
  if (field === "*" || field === "?") return ""
  const parts = field.split(",").map((part) => {
    const range = /^(\w+)-(\w+)$/.exec(part)
    if (range) {
      const [a, b] = [dayNumber(range[1]!), dayNumber(range[2]!)]
      return a === undefined || b === undefined ? undefined : `${DAYS[a]}..${DAYS[b]}`
    }
    const n = dayNumber(part)
    return n === undefined ? undefined : DAYS[n]
  })
  return parts.some((p) => p === undefined) ? undefined : parts.join(",")
}

export type Converted = { readonly value: string } | { readonly problem: string }

// `0 0/5 * * * *` → `*-*-* *:00/5:00`; undefined forms give a problem to warn about
export const toOnCalendar = (schedule: string): Converted => {
  const [sec, min, hour, dom, mon, dow] = schedule.trim().split(/\s+/) as [
    string,
    string,
    string,
    string,
    string,
    string,
  ]
  if (dom !== "*" && dom !== "?" && dow !== "*" && dow !== "?")
    return {
      problem: `sets both day and weekday, which cron joins with OR and systemd with AND`,
    }
  const fields = [
    calendarField(mon, 1, 2),
    calendarField(dom === "?" ? "*" : dom, 1, 2),
    calendarField(hour, 0, 2),
    calendarField(min, 0, 2),
    calendarField(sec, 0, 2),
  ]
  const days = calendarWeekdays(dow)
  if (fields.some((f) => f === undefined) || days === undefined)
    return { problem: "uses a form (names, L, W, #, a step over a range) that OnCalendar= cannot say" }
  const [m, d, h, mi, s] = fields as Array<string>
  return { value: `${days === "" ? "" : `${days} `}*-${m}-${d} ${h}:${mi}:${s}` }
}

/** The 5-field form, when the seconds field is `0` (Kubernetes has no seconds). */
export const toFiveFields = (schedule: string): Converted => {
  const fields = schedule.trim().split(/\s+/)
  if (fields[0] !== "0")
    return { problem: `fires on seconds (${fields[0]}), and a CronJob schedule has minutes at the finest` }
  return { value: fields.slice(1).join(" ") }
}

/** Nomad's cron takes seconds first and a year last. */
export const toSevenFields = (schedule: string): string => `${schedule.trim().split(/\s+/).join(" ")} *`
