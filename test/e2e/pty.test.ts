/**
 * `pty = true` through the built CLI: the daemon sees a terminal; a SIGKILLed supervisor neither
 * kills it nor loses a line (its holder keeps copying); `stop` ends the daemon and the holder.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type DaemonSandbox,
  daemonEntry,
  isAlive,
  makeDaemonSandbox,
  storedLogs,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 30_000

let sb: DaemonSandbox
let proj: string
const cli = (...args: Array<string>) => sb.cli(args, proj)

/** The holder of a daemon's pseudo-terminal (`supervisor-pty <id>`), if it runs. */
const holderOf = (id: string): number | undefined =>
  readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .find((pid) => {
      try {
        return (
          isAlive(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(`supervisor-pty ${id}\0`)
        )
      } catch {
        return false
      }
    })

beforeAll(() => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "term",
    `
[daemons.tty]
run = "if [ -t 1 ]; then echo 'stdout is a terminal'; fi; ls --color=auto -d /; exec sleep 300"
ready_delay = 0.2
pty = true

[daemons.ticker]
run = "i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.02; done"
ready_delay = 0.2
pty = true
`,
  )
}, T)
afterAll(() => sb.destroy(), T)

describe("pty = true", () => {
  it(
    "the daemon runs under a terminal: programs that colour on a terminal do",
    async () => {
      expect(cli("start", "tty").status).toBe(0)
      const es = await waitFor("two lines", async () => {
        const got = await storedLogs(sb.stateDir, "term/tty")
        return got.length >= 2 ? got : undefined
      })
      expect(es[0]!.message).toBe("stdout is a terminal")
      expect(es[1]!.message).toContain("\u001b[") // ls coloured the directory
      expect(cli("logs", "tty", "--raw", "--no-timestamp").stdout).toBe("stdout is a terminal\n/\n")
      const pid = (await daemonEntry(sb.stateDir, "term/tty"))!.pid!
      expect(readlinkSync(`/proc/${pid}/fd/1`)).toMatch(/^\/dev\/pts\/\d+$/)
    },
    T,
  )

  it(
    "a SIGKILLed supervisor kills neither the daemon nor its holder, and no line is lost; stop ends both",
    async () => {
      expect(cli("start", "ticker").status).toBe(0)
      const pid = (await daemonEntry(sb.stateDir, "term/ticker"))!.pid!
      await waitFor("ticks", async () => (await storedLogs(sb.stateDir, "term/ticker")).length >= 5)
      const holder = holderOf("term/ticker")
      expect(holder).toBeDefined()
      const [supervisor] = supervisorPids(sb.stateDir)
      process.kill(supervisor!, "SIGKILL")
      await waitFor("the supervisor to be gone", () => !isAlive(supervisor!))
      // the daemon goes on writing through its terminal while no supervisor runs
      const size = () => readFileSync(`${sb.stateDir}/logs/term--ticker.out`).length
      const before = size()
      await waitFor("output written while no supervisor runs", () => size() > before + 200)
      expect(isAlive(pid)).toBe(true)
      expect(holderOf("term/ticker")).toBe(holder)

      // the next command brings a supervisor up, which takes the daemon back
      const adopted = JSON.parse(cli("status", "ticker", "--json").stdout) as { pid: number }
      expect(adopted.pid).toBe(pid)
      // every line in the file now, the downtime's among them, gets stored
      const written = readFileSync(`${sb.stateDir}/logs/term--ticker.out`, "latin1").split("\n").length - 1
      const ticks = await waitFor("the lines of the downtime", async () => {
        const es = await storedLogs(sb.stateDir, "term/ticker")
        return es.length >= written ? es.map((e) => Number(e.message.slice(5))) : undefined
      })
      expect(ticks[0]).toBe(1)
      expect(ticks, "no tick lost or duplicated").toEqual(ticks.map((_, i) => i + 1))

      expect(cli("stop", "ticker").status).toBe(0)
      expect(isAlive(pid)).toBe(false)
      await waitFor("the holder to end", () => holderOf("term/ticker") === undefined)
    },
    T,
  )
})
