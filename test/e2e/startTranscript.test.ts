/**
 * `supervisor start` with stdout and stderr not on a terminal prints a transcript: what it waits
 * for, then each daemon's line as soon as that daemon is settled, not all of them at the end.
 * Once through the full CLI (the first start, which starts the supervisor), once through the
 * quick client (the supervisor runs). The closing hint names the daemons started.
 */
import { rmSync, writeFileSync } from "node:fs"
import * as net from "node:net"
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

/**
 * The transcript of fast and slow: each one's waiting line before its ✓ line, slow's only once
 * fast's is out (slow waits for its gate), and the hint last. Fast and slow start together, so
 * slow's waiting line may come before or after fast's lines.
 */
const checkTranscript = (out: string) => {
  const lines = out.split("\n").filter(Boolean)
  const at = (line: string) => {
    const i = lines.indexOf(line)
    expect(i, `"${line}" in:\n${out}`).toBeGreaterThanOrEqual(0)
    return i
  }
  const fastWaits = at("tr/fast waiting for 0s")
  const slowWaits = at("tr/slow waiting for output matching /^up$/")
  const fastReady = at("✓ tr/fast is running (pid N)")
  const slowReady = at("✓ tr/slow is running (pid N)")
  expect(fastWaits).toBeLessThan(fastReady)
  expect(slowWaits).toBeLessThan(slowReady)
  expect(fastReady).toBeLessThan(slowReady)
  expect(lines.slice(4)).toEqual([
    "logs: supervisor logs tr/fast tr/slow -f    status: supervisor list    stop: supervisor stop tr/fast tr/slow",
  ])
}

describe("start without a terminal", () => {
  it(
    "prints each daemon's line when it is ready, through the full CLI and the quick client alike",
    async () => {
      expect(supervisorPids(sb.stateDir)).toEqual([]) // the full CLI: it starts the supervisor
      checkTranscript(await startBoth())
      expect(sb.cli(["stop", "fast", "slow"], proj).status).toBe(0)
      rmSync(join(proj, "slow.go"))
      expect(supervisorPids(sb.stateDir)).toHaveLength(1) // the quick client answers now
      checkTranscript(await startBoth())
    },
    T,
  )

  it(
    "says what a daemon waits for once it is spawned: with the port a bump gave it",
    async () => {
      const taken = net.createServer()
      await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
      const port = (taken.address() as net.AddressInfo).port
      try {
        const dir = sb.project(
          "bumps",
          [
            "[daemons.bumpy]",
            `run = "exec node -e \\"require('net').createServer().listen(Number(process.env.PORT), '127.0.0.1')\\""`,
            `port = { expect = [${port}], bump = true }`,
            'ready_port = "{{ daemons.bumpy.port }}"',
            "",
          ].join("\n"),
        )
        for (const cli of ["quick", "full"]) {
          // the full CLI: a readiness flag the quick client leaves to it (the same check)
          const args =
            cli === "quick" ? ["start", "bumpy"] : ["start", "bumpy", "--port", "{{ daemons.bumpy.port }}"]
          const r = sb.cli(args, dir)
          expect(r.status, `${cli}: ${r.stderr}`).toBe(0)
          const got = /✓ bumps\/bumpy is running \(pid \d+, port (\d+); port (\d+) was in use\)/.exec(
            r.stdout,
          )
          expect(got, `${cli}: ${r.stdout}`).not.toBeNull()
          expect(Number(got?.[2])).toBe(port)
          expect(r.stdout.split("\n")[0], cli).toBe(`bumps/bumpy waiting for port ${got?.[1]}`)
          expect(sb.cli(["stop", "bumpy"], dir).status).toBe(0)
        }
      } finally {
        taken.close()
      }
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
