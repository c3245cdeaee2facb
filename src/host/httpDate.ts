// An HTTP `Date` header (IMF-fixdate, RFC 9110) made from the UTC fields alone. Node's own, from
// `Date.prototype.toUTCString`, makes V8 ask ICU for the local time zone first: ICU's time-zone
// data and objects, ~0.8 MiB of resident memory for the process's life (docs/benchmarks.md).
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const two = (n: number) => (n < 10 ? `0${n}` : `${n}`)

/** The IMF-fixdate of `ms` since the epoch: what `new Date(ms).toUTCString()` gives for years 1000-9999. */
export const imfFixdate = (ms: number): string => {
  const d = new Date(ms)
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`
}

// one text a second, as Node keeps its own
let cached = { second: Number.NaN, text: "" }

/** Now's `Date` header. */
export const httpDate = (now: number = Date.now()): string => {
  const second = Math.floor(now / 1000)
  if (second !== cached.second) cached = { second, text: imfFixdate(second * 1000) }
  return cached.text
}
