// What encoding a log line through its Schema costs, against JSON.stringify alone: why
// src/domain/jsonEncoding.ts skips the encode call for schemas whose encoding is the identity.
// Usage: node bench/json-encoding.mjs [lines]   (default 1000000; prints the median of 5 runs)
import { Schema } from "effect"

const n = Number(process.argv[2] ?? 1_000_000)
const LogEntry = Schema.Struct({
  id: Schema.Int,
  timestamp: Schema.String,
  daemon_id: Schema.String,
  message: Schema.String,
})
const entries = Array.from({ length: n }, (_, i) => ({
  id: i + 1,
  timestamp: "2026-01-31 12:00:00",
  daemon_id: "app/web",
  message: `GET /api/items/${i} 200 in ${i % 97} ms`,
}))
const encode = Schema.encodeSync(LogEntry)
const ways = [
  ["JSON.stringify", (e) => JSON.stringify(e)],
  ["Schema.encodeSync + JSON.stringify", (e) => JSON.stringify(encode(e))],
]
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
console.log(`| ${n} log lines | median ms |`)
console.log("|---|---|")
for (const [name, line] of ways) {
  const times = []
  for (let run = 0; run < 5; run++) {
    const t = performance.now()
    let bytes = 0
    for (const e of entries) bytes += line(e).length + 1
    times.push(performance.now() - t)
    if (bytes === 0) throw new Error("nothing written")
  }
  console.log(`| ${name} | ${median(times).toFixed(0)} |`)
}
