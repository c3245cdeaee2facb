/**
 * `supervisor logs -f` over several daemons against a real supervisor: the history is one
 * view interleaved by time (as without `-f`), `-n` counts over all of them, the filters apply to
 * the history and to new lines, and each new line shows once. The daemons write at gates the
 * test opens, a second apart (timestamps have a resolution of one second).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, spawnCli, storedLogs, waitFor } from "./harness.js"

const T = 30_000

let sb: DaemonSandbox
let proj: string

const gate = (name: string) => `while [ ! -f ${name} ]; do sleep 0.05; done`
/** The stored entry of `id` whose message is `text`, once it is indexed. */
const stored = (id: string, text: string) =>
  waitFor(`"${text}" in the logs of ${id}`, async () =>
    (await storedLogs(sb.stateDir, id)).find((e) => e.message === text),
  )
const epochSecond = (timestamp: string) => Math.floor(new Date(timestamp.replace(" ", "T")).getTime() / 1000)
/** Waits until the clock is past the second of `timestamp`, so that the next line is later. */
const nextSecond = (timestamp: string) =>
  waitFor("the next second", () => Math.floor(Date.now() / 1000) > epochSecond(timestamp) || undefined)
const open = (name: string) => writeFileSync(join(proj, name), "")
const shown = (text: string) => text.split("\n").filter(Boolean)

beforeAll(async () => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "follow",
    ["alpha", "beta"].map((n) => `[daemons.${n}]\nrun = "exec sh ${n}.sh"\nready_delay = 0\n`).join("\n"),
  )
  sb.write({
    "follow/alpha.sh": ["echo a1", gate("a2.go"), "echo a2", "exec sleep 300", ""].join("\n"),
    "follow/beta.sh": [
      gate("b1.go"),
      "echo b1",
      gate("b2.go"),
      "echo b2",
      gate("b3.go"),
      "echo b3",
      "echo b22",
      "exec sleep 300",
      "",
    ].join("\n"),
  })
  const r = sb.cli(["start", "alpha", "beta"], proj)
  expect(r.status, r.stderr).toBe(0)
  // a1, then b1 a second later, then a2 a second after that
  const a1 = await stored("follow/alpha", "a1")
  await nextSecond(a1.timestamp)
  open("b1.go")
  const b1 = await stored("follow/beta", "b1")
  await nextSecond(b1.timestamp)
  open("a2.go")
  await stored("follow/alpha", "a2")
}, T)

afterAll(() => sb.destroy())

/** Runs `logs ARGS` following, until `done(stdout)`; returns what it printed, then stops it. */
const follow = async (args: Array<string>, until: (out: Array<string>) => boolean, then?: () => void) => {
  const tail = spawnCli(["logs", ...args, "-f", "--no-timestamp"], { cwd: proj, env: sb.env })
  try {
    await waitFor(`logs ${args.join(" ")} -f`, () => until(shown(tail.stdout())) || undefined)
    if (then) then()
    return tail
  } catch (e) {
    tail.child.kill("SIGTERM")
    throw new Error(`${e}; printed:\n${tail.stdout()}${tail.stderr()}`)
  }
}

describe("logs -f over several daemons", () => {
  it(
    "prints their history interleaved by time, as logs does without -f",
    async () => {
      const tail = await follow(["alpha", "beta"], (out) => out.length >= 3)
      tail.child.kill("SIGTERM")
      await tail.exited
      expect(shown(tail.stdout())).toEqual(["follow/alpha a1", "follow/beta b1", "follow/alpha a2"])
      const plain = sb.cli(["logs", "alpha", "beta", "--no-timestamp"], proj)
      expect(shown(plain.stdout)).toEqual(shown(tail.stdout()))
    },
    T,
  )

  it(
    "-n counts the lines of all of them; then each new line shows once",
    async () => {
      const tail = await follow(["alpha", "beta", "-n", "2"], (out) => out.length >= 2)
      try {
        open("b2.go")
        await waitFor("the new line", () => tail.stdout().includes("b2") || undefined)
        await stored("follow/beta", "b2")
        // any line printed twice would be there by now: the store has indexed b2
        expect(shown(tail.stdout())).toEqual(["follow/beta b1", "follow/alpha a2", "follow/beta b2"])
      } finally {
        tail.child.kill("SIGTERM")
      }
      await tail.exited
    },
    T,
  )

  it(
    "--grep and --regex select the history and the new lines alike",
    async () => {
      await stored("follow/beta", "b2")
      const grep = await follow(["alpha", "beta", "--grep", "2"], (out) => out.length >= 2)
      try {
        expect(shown(grep.stdout())).toEqual(["follow/alpha a2", "follow/beta b2"])
        open("b3.go") // b3, then b22: only b22 matches
        await waitFor("the new matching line", () => grep.stdout().includes("b22") || undefined)
        expect(shown(grep.stdout())).toEqual(["follow/alpha a2", "follow/beta b2", "follow/beta b22"])
      } finally {
        grep.child.kill("SIGTERM")
      }
      await grep.exited
      const regex = await follow(["alpha", "beta", "--regex", "^B", "-n", "5"], (out) => out.length >= 4)
      regex.child.kill("SIGTERM")
      await regex.exited
      expect(shown(regex.stdout())).toEqual([
        "follow/beta b1",
        "follow/beta b2",
        "follow/beta b3",
        "follow/beta b22",
      ])
    },
    T,
  )

  it(
    "ends when the supervisor stops, and says so (exit 0); a follow the user ends says nothing",
    async () => {
      const killed = await follow(["alpha"], (out) => out.length >= 2)
      killed.child.kill("SIGTERM")
      await killed.exited
      expect(killed.stderr()).toBe("")
      const tail = await follow(["alpha", "beta"], (out) => out.length >= 2)
      expect(sb.cli(["supervisor", "stop"], proj).status).toBe(0)
      const end = await tail.exited
      expect(end.code).toBe(0)
      expect(tail.stderr()).toBe("-- the supervisor stopped; no more lines will come --\n")
    },
    T,
  )

  it(
    "--until with -f is a usage error",
    () => {
      const r = sb.cli(["logs", "alpha", "-f", "--until", "5min"], proj)
      expect(r.status).toBe(2)
      expect(r.stderr).toContain("--until cannot be combined with --tail")
    },
    T,
  )
})
