/**
 * The background supervisor's memory settings (src/host/nodeFlags.ts, src/host/mallocTuning.ts)
 * through the built CLI: started by a command or by the shell hook's `cd`, it runs with its V8
 * flags and glibc's malloc tunables, and none of its daemons inherits the tunables; a caller's own
 * GLIBC_TUNABLES is left as the caller set it, for the supervisor and its daemons alike.
 */
import { afterEach, describe, expect, it } from "vitest"
import { MALLOC_TUNABLES, MALLOC_TUNED } from "../../src/host/mallocTuning.js"
import {
  cmdlineOf,
  type DaemonSandbox,
  daemonPids,
  environOf,
  makeDaemonSandbox,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 30_000
const CONFIG = `
[daemons.a]
run = "exec sleep 300"
ready_delay = 0
`

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

/**
 * Whether a process was started with the supervisor's tunables. /proc shows the environment's
 * original memory, which glibc (2.36 here) cuts at the first ':' when it parses the tunables.
 */
const tuned = (pid: number) => {
  const env = environOf(pid)
  const tunables = env.get("GLIBC_TUNABLES")
  return (
    env.get(MALLOC_TUNED) === "1" &&
    tunables !== undefined &&
    (tunables === MALLOC_TUNABLES || MALLOC_TUNABLES.startsWith(`${tunables}:`))
  )
}

const theSupervisor = async (stateDir: string) => {
  await waitFor("the supervisor", () => supervisorPids(stateDir).length === 1)
  return supervisorPids(stateDir)[0]!
}

describe("the background supervisor's memory settings", () => {
  it(
    "a command's supervisor runs with the tunables and the flags; its daemons get neither",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
      const supervisor = await theSupervisor(sb.stateDir)
      expect(tuned(supervisor)).toBe(true)
      expect(cmdlineOf(supervisor)).toContain("--compact-on-every-full-gc")
      expect(cmdlineOf(supervisor)).toContain("--expose-gc")
      const [daemon] = daemonPids(sb.stateDir, "app/a")
      expect(daemon).toBeDefined()
      const env = environOf(daemon!)
      expect(env.get("SUPERVISOR_DAEMON_ID")).toBe("app/a")
      expect(env.has("GLIBC_TUNABLES")).toBe(false)
      expect(env.has(MALLOC_TUNED)).toBe(false)
    },
    T,
  )

  it(
    "a caller's own GLIBC_TUNABLES is kept, for the supervisor and its daemons",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      const own = { ...sb.env, GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }
      expect(sb.cli(["supervisor", "start"], cwd, own).status).toBe(0)
      const supervisor = await theSupervisor(sb.stateDir)
      expect(environOf(supervisor).get("GLIBC_TUNABLES")).toBe("glibc.malloc.arena_max=2")
      expect(environOf(supervisor).has(MALLOC_TUNED)).toBe(false)
      // started from the supervisor's environment: `autostart` daemons are, at its start
      expect(sb.cli(["start", "--all", "--quiet"], cwd, own).status).toBe(0)
      const [daemon] = daemonPids(sb.stateDir, "app/a")
      expect(environOf(daemon!).get("GLIBC_TUNABLES")).toBe("glibc.malloc.arena_max=2")
    },
    T,
  )

  it(
    "the shell hook's cd starts it with the tunables too",
    async () => {
      sb = makeDaemonSandbox()
      const cwd = sb.project("app", CONFIG)
      expect(sb.cli(["cd", "--shell-pid", String(process.pid)], cwd).status).toBe(0)
      const supervisor = await theSupervisor(sb.stateDir)
      expect(tuned(supervisor)).toBe(true)
      expect(cmdlineOf(supervisor)).toContain("--compact-on-every-full-gc")
      expect(cmdlineOf(supervisor)).toContain("--expose-gc")
    },
    T,
  )
})
