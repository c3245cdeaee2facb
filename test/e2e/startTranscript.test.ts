/**
 * `supervisor start` with stdout and stderr not on a terminal prints a transcript: what it waits
 * for, then each daemon's line as soon as that daemon is settled, not all of them at the end.
 * Once through the full CLI (the first start, which starts the supervisor), once through the
 * quick client (the supervisor runs). The closing hint names the daemons started.
 */
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, spawnCli, supervisorPids, waitFor } from "./harness.js"

const T = 30_000

let sb: DaemonSandbox
let proj: string

beforeAll(() => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "tr",
    [
      '[daemons.fast]\nrun = "exec sleep 300"\nready_delay = 0\n',
      '[daemons.slow]\nrun = "exec sh slow.sh"\nready_output = "^up$"\n',
      ...["m1", "m2", "m3", "m4"].map((n) => `[daemons.${n}]\nrun = "exec sleep 300"\nready_delay = 0\n`),
    ].join("\n"),
  )
  sb.write({ "tr/slow.sh": "while [ ! -f slow.go ]; do sleep 0.05; done\necho up\nexec sleep 300\n" })
})

afterAll(() => sb.destroy())

const pidless = (text: string) => text.replace(/\(pid \d+/g, "(pid N")

/** Starts fast and slow; checks fast's line is out while slow still waits; returns the output. */
const startBoth = async () => {
  const start = spawnCli(["start", "fast", "slow"], { cwd: proj, env: sb.env })
  try {
    await waitFor("fast's line", () => start.stdout().includes("✓ tr/fast is running") || undefined)
    // slow waits for its gate: the start is still going, and says nothing of slow yet
    expect(start.child.exitCode).toBeNull()
    expect(start.stdout()).not.toContain("tr/slow is running")
    writeFileSync(join(proj, "slow.go"), "")
  } finally {
    const end = await Promise.race([
      start.exited,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 15_000)),
    ])
    if (end === undefined) start.child.kill("SIGKILL")
  }
  const end = await start.exited
  expect(end.code, start.stderr()).toBe(0)
  expect(start.stderr()).toBe("")
  return pidless(start.stdout())
}

const transcript = [
  "tr/fast waiting for 0s",
  "tr/slow waiting for output matching /^up$/",
  "✓ tr/fast is running (pid N)",
  "✓ tr/slow is running (pid N)",
  "logs: supervisor logs tr/fast tr/slow -f    status: supervisor list    stop: supervisor stop tr/fast tr/slow",
  "",
].join("\n")

describe("start without a terminal", () => {
  it(
    "prints each daemon's line when it is ready, through the full CLI and the quick client alike",
    async () => {
      expect(supervisorPids(sb.stateDir)).toEqual([]) // the full CLI: it starts the supervisor
      expect(await startBoth()).toBe(transcript)
      expect(sb.cli(["stop", "fast", "slow"], proj).status).toBe(0)
      rmSync(join(proj, "slow.go"))
      expect(supervisorPids(sb.stateDir)).toHaveLength(1) // the quick client answers now
      expect(await startBoth()).toBe(transcript)
    },
    T,
  )

  it(
    "names the daemons in the closing hint up to three; with more, the commands for all",
    () => {
      const three = sb.cli(["start", "m1", "m2", "m3"], proj)
      expect(three.status, three.stderr).toBe(0)
      expect(three.stdout).toContain(
        "logs: supervisor logs tr/m1 tr/m2 tr/m3 -f    status: supervisor list    stop: supervisor stop tr/m1 tr/m2 tr/m3\n",
      )
      expect(sb.cli(["stop", "m1", "m2", "m3"], proj).status).toBe(0)
      const four = sb.cli(["start", "m1", "m2", "m3", "m4"], proj)
      expect(four.status, four.stderr).toBe(0)
      expect(four.stdout).toContain(
        "logs: supervisor logs -f    status: supervisor list    stop all: supervisor stop --all\n",
      )
    },
    T,
  )
})
