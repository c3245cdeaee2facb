/**
 * The supervisor collects its garbage once its socket is quiet after a burst
 * (src/host/restCollection.ts), through the built CLI: a foreground supervisor with the background
 * one's Node flags and V8's `--trace-gc` (which names the kind of each collection), a start
 * of 30 daemons and listings over the socket, then a full collection while nothing is asked,
 * in V8's memory-reducing mode (the built dist/memory-relief.node), which drops the code of what
 * is not running (`--trace-flush-bytecode` names each function).
 * `SUPERVISOR_REST_COLLECTION=1000,1,600`: no burst here grows the heap by 1000 MiB, so each gets
 * the single collection that keeps code (V8's memory pressure), and the one that drops it (a
 * low-memory notification, which nothing else sends) comes after 1 s of quiet instead of a minute;
 * the one that drops the code not run lately, after 10 minutes instead of 10 s. With `0,600,1`,
 * each burst gets the thorough collection (low-memory notifications) and the one that drops old
 * code (a single collection: V8's memory pressure, which nothing else sends then) comes after 1 s
 * (the thresholds are tested in test/host/restCollection.test.ts).
 */
import { spawn } from "node:child_process"
import { afterEach, describe, expect, it } from "vitest"
import { supervisorNodeFlags } from "../../src/host/nodeFlags.js"
import { BIN, type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000
const CONFIG = Array.from(
  { length: 30 },
  (_, i) => `[daemons.d${i}]\nrun = "exec sleep 300"\nready_delay = 0\n`,
).join("\n")

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

// dist/memory-relief.node's collections (src/host/memoryRelief.cc): in V8's memory-reducing mode,
// the one that flushes code until one frees nothing more (a low-memory notification; with the
// setting below, no other collection is one)
const explicit = /Mark-Compact \(reduce\).*low memory notification/

/** Each full collection in V8's `--trace-gc` output, with the functions it flushed. */
const flushesByCollection = (
  out: string,
): ReadonlyArray<{ readonly line: string; readonly flushes: number }> => {
  const collections: Array<{ line: string; flushes: number }> = []
  let flushes = 0
  // a collector thread's line may run into the main thread's: match, do not split on newlines
  for (const m of out.matchAll(/discarding compiled metadata|\d+ ms: (?:Mark-Compact|Scavenge)[^\n]*/g)) {
    if (m[0] === "discarding compiled metadata") flushes++
    else {
      if (m[0].includes("Mark-Compact")) collections.push({ line: m[0], flushes })
      flushes = 0
    }
  }
  return collections
}

/**
 * `supervisor run` in the foreground under `nodeArgs`, its stdout and stderr kept: it logs on
 * stdout (in container mode on stderr), and says it listens on stderr.
 */
const foreground = async (
  box: DaemonSandbox,
  nodeArgs: ReadonlyArray<string>,
  env: Record<string, string>,
) => {
  const host = spawn(process.execPath, [...nodeArgs, BIN, "supervisor", "run"], {
    cwd: box.root,
    env: { ...box.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let out = ""
  host.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d
  })
  let err = ""
  host.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d
  })
  await waitFor("the supervisor to listen", () => err.includes("listening on"), { timeout: 20_000 })
  return {
    out: () => out,
    stop: async (cwd: string) => {
      expect(box.cli(["supervisor", "stop"], cwd).status).toBe(0)
      // its output read to the end
      await new Promise((r) => (host.stdout.readableEnded ? r(null) : host.once("close", r)))
    },
  }
}

describe("collection at rest", () => {
  it(
    "after a start and listings, the collection dropping code runs once the socket has been quiet",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      const host = await foreground(sb, [...supervisorNodeFlags, "--trace-gc", "--trace-flush-bytecode"], {
        SUPERVISOR_REST_COLLECTION: "1000,1,600",
      })
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      for (let i = 0; i < 3; i++) expect(sb.cli(["list", "--json"], cwd).status).toBe(0)
      await waitFor("an explicit full collection", () => explicit.test(host.out()), { timeout: 20_000 })
      // the supervisor compiles again what the next commands run
      expect(sb.cli(["stop", "--all"], cwd).status).toBe(0)
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      const list = JSON.parse(sb.cli(["list", "--json"], cwd).stdout) as Array<{ status: { type: string } }>
      expect(list.filter((d) => d.status.type === "running")).toHaveLength(30)
      await host.stop(cwd)
      // the collection dropped the code of what was not running, and only it: V8 names each
      // function it flushes (from its collector's threads too, so counted once the process has
      // exited) before the line of the collection that flushed it. The number varies from run to
      // run (1,400-4,000 on a quiet machine, 40-170 with two busy loops beside it, for the same
      // heap after it: what it does not name, it frees whole), so the test asks for some.
      const flushed = flushesByCollection(host.out())
      expect(flushed.find((c) => /low memory notification/.test(c.line))?.flushes ?? 0).toBeGreaterThan(0)
      // the collections after each burst keep the code (none at all with
      // SUPERVISOR_REST_COLLECTION=off either: V8's own collections flush only what has not run
      // for five of them, a few in a life this short)
      const keeping = flushed.filter((c) => /memory pressure/.test(c.line))
      expect(keeping.length).toBeGreaterThan(0)
      for (const c of keeping) expect(c.flushes).toBe(0)
    },
    T,
  )

  it(
    "the collection dropping the code not run lately runs once the socket has been quiet, and commands after it are answered",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      const host = await foreground(sb, [...supervisorNodeFlags, "--trace-gc"], {
        SUPERVISOR_REST_COLLECTION: "0,600,1",
      })
      const pressure = () =>
        flushesByCollection(host.out()).filter((c) => /memory pressure/.test(c.line)).length
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      for (let i = 0; i < 3; i++) expect(sb.cli(["list", "--json"], cwd).status).toBe(0)
      await waitFor("the thorough collection after the burst", () => explicit.test(host.out()), {
        timeout: 20_000,
      })
      // one after the quiet that follows the commands (more where a slow machine left them a second apart)
      await waitFor("the collection dropping old code", () => pressure() >= 1, { timeout: 20_000 })
      const before = pressure()
      // the code it dropped is compiled again by what runs next
      expect(sb.cli(["stop", "--all"], cwd).status).toBe(0)
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      const list = JSON.parse(sb.cli(["list", "--json"], cwd).stdout) as Array<{ status: { type: string } }>
      expect(list.filter((d) => d.status.type === "running")).toHaveLength(30)
      await waitFor("the next burst's", () => pressure() > before, { timeout: 20_000 })
      await host.stop(cwd)
    },
    T,
  )

  it(
    "a bad SUPERVISOR_REST_COLLECTION is named in the supervisor's log, which starts all the same",
    async () => {
      sb = makeDaemonSandbox()
      const host = await foreground(sb, [], { SUPERVISOR_REST_COLLECTION: "lots" })
      await waitFor("the warning", () =>
        host.out().includes("SUPERVISOR_REST_COLLECTION=lots: expected a number of MiB"),
      )
      await host.stop(sb.root)
    },
    T,
  )
})
