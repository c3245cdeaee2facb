/**
 * The supervisor's bundle calls none of the JavaScript APIs backed by ICU's data (collation,
 * `Intl`, `toLocale*String`): the first call maps that data into the process, 3-8 MiB of resident
 * memory that stays (`localeCompare` ~2.7 MiB, `Intl.DateTimeFormat` ~8 MiB in a bare `node`;
 * docs/benchmarks.md). Orders use src/domain/idOrder.ts; croner, which formats times with `Intl`,
 * is its own file (dist/croner.cjs), loaded only for a daemon with a cron schedule.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"

const dist = resolve(__dirname, "../../dist")

describe("ICU's data stays out of the supervisor", () => {
  it.each(["host.cjs", "proxy-worker.cjs", "quick.cjs", "quick-cd.cjs"])(
    "%s calls no ICU-backed API",
    (file) => {
      const text = readFileSync(resolve(dist, file), "utf8")
      expect(text.match(/\.localeCompare\(|\bIntl\.|\.toLocale(Date|Time)?String\(/g) ?? []).toEqual([])
    },
  )
})
