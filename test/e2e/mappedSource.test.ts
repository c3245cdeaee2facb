/**
 * The supervisor's bundle as file pages (src/host/mappedSource.ts), through the built CLI: a
 * background supervisor's source is a mapping of an unlinked file of its own in its state
 * directory, which the collection at rest lets go of (dist/memory-relief.node's `evictSource`) and
 * the next commands read again; with `SUPERVISOR_MAPPED_SOURCE=0` the bundle is read into the
 * heap as before. Where the state directory is memory (tmpfs), nothing is mapped: that is what
 * the test then asks.
 */
import { readdirSync, readFileSync, statfsSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { BIN, type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000
const CONFIG = Array.from(
  { length: 10 },
  (_, i) => `[daemons.d${i}]\nrun = "exec sleep 300"\nready_delay = 0\n`,
).join("\n")

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.cli(["supervisor", "stop"], sb.root)
  sb?.destroy()
  sb = undefined
})

/** The supervisor's pid, from `supervisor status --json`. */
const pidOf = (box: DaemonSandbox, cwd: string): number =>
  (JSON.parse(box.cli(["supervisor", "status", "--json"], cwd).stdout) as { pid: number }).pid

/** The mapping of the source copy in `pid`'s memory: its size and resident kB; undefined when none. */
const sourceMapping = (pid: number, stateDir: string) => {
  const entries = readFileSync(`/proc/${pid}/smaps`, "utf8").split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)
  const entry = entries.find((e) => e.split("\n")[0]?.endsWith(`${stateDir}/.source-${pid}.cjs (deleted)`))
  if (entry === undefined) return undefined
  const kb = (field: string) => Number(new RegExp(`\\n${field}:\\s+(\\d+) kB`).exec(entry)?.[1])
  return { size: kb("Size"), rss: kb("Rss") }
}

/** A sandbox with the project, its background supervisor started with `env` added. */
const started = (env: Record<string, string>) => {
  sb = makeDaemonSandbox()
  const box = sb
  Object.assign(box.env, env)
  const cwd = box.project("app", CONFIG)
  expect(box.cli(["supervisor", "start"], cwd).status).toBe(0)
  return { box, cwd, pid: pidOf(box, cwd) }
}

/** `start --all`, then how many daemons `list --json` says run. */
const runningAfterStart = (box: DaemonSandbox, cwd: string) => {
  expect(box.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
  const list = JSON.parse(box.cli(["list", "--json"], cwd).stdout) as Array<{ status: { type: string } }>
  return list.filter((d) => d.status.type === "running").length
}

const TMPFS = 0x01021994
const RAMFS = 0x858458f6

describe("the bundle's source mapped from a file (e2e)", () => {
  it(
    "a background supervisor maps it, the collection at rest lets its pages go, commands read them again",
    async () => {
      // quick collections: after every burst (0 MiB of growth)
      const { box, cwd, pid } = started({ SUPERVISOR_REST_COLLECTION: "0" })
      const inMemory = [TMPFS, RAMFS].includes(statfsSync(box.stateDir).type)
      // nothing named in the state directory: the copy was unlinked once open
      expect(readdirSync(box.stateDir).filter((f) => f.startsWith(".source-"))).toEqual([])
      if (inMemory) {
        expect(sourceMapping(pid, box.stateDir)).toBeUndefined()
        return
      }
      const bundle = readFileSync(join(dirname(BIN), "host.cjs")).length
      const mapped = sourceMapping(pid, box.stateDir)
      // the whole bundle and Node's module wrapper, in 4 KiB pages
      expect(mapped?.size).toBeGreaterThanOrEqual(Math.ceil(bundle / 1024))
      expect(mapped?.size).toBeLessThan(Math.ceil(bundle / 1024) + 8)
      expect(runningAfterStart(box, cwd)).toBe(10)
      // the collection after the burst lets the pages go (a few may be read again since)
      await waitFor(
        "the source's pages let go",
        () => (sourceMapping(pid, box.stateDir)?.rss ?? Number.POSITIVE_INFINITY) < (mapped?.size ?? 0) / 4,
        { timeout: 20_000 },
      )
      // what the next commands compile is read from the file again
      expect(box.cli(["stop", "--all"], cwd).status).toBe(0)
      expect(runningAfterStart(box, cwd)).toBe(10)
      expect(box.cli(["supervisor", "stop"], cwd).status).toBe(0)
    },
    T,
  )

  it(
    "SUPERVISOR_MAPPED_SOURCE=0: the bundle is read into the heap, and the supervisor works as well",
    async () => {
      const { box, cwd, pid } = started({ SUPERVISOR_MAPPED_SOURCE: "0" })
      expect(sourceMapping(pid, box.stateDir)).toBeUndefined()
      expect(runningAfterStart(box, cwd)).toBe(10)
      expect(box.cli(["supervisor", "stop"], cwd).status).toBe(0)
    },
    T,
  )
})
