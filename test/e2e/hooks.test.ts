/**
 * Lifecycle hooks through the built CLI against a real supervisor: each hook writes a line
 * with its variables to a file the test reads. One supervisor for the file (its hook timeout
 * set to 1 s); every test uses its own daemons and files.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { docExamples } from "./docExamples.js"
import {
  type DaemonSandbox,
  daemonPids,
  makeDaemonSandbox,
  STACK_LINE,
  supervisorPids,
  waitFor,
} from "./harness.js"

const T = 30_000
let sb: DaemonSandbox
let dir: string

/** A hook that appends `<name> <variables>` to <file>. */
const hook = (name: string, file: string) =>
  `${name} = 'echo "${name} id=$SUPERVISOR_DAEMON_ID ns=$SUPERVISOR_DAEMON_NAMESPACE retry=$SUPERVISOR_RETRY_COUNT code=$SUPERVISOR_EXIT_CODE reason=$SUPERVISOR_EXIT_REASON mode=$MODE pwd=$(pwd)" >> ${file}'`
const allHooks = (file: string) =>
  ["on_ready", "on_fail", "on_retry", "on_stop", "on_exit"].map((h) => hook(h, file)).join("\n")

const linesOf = (file: string): Array<string> => {
  const path = join(dir, file)
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean) : []
}
const waitLines = (file: string, n: number) =>
  waitFor(`${n} lines in ${file}`, () => {
    const lines = linesOf(file)
    return lines.length >= n ? lines : undefined
  })
const supervisorLog = () => {
  const path = join(sb.stateDir, "logs", "supervisor.log")
  return existsSync(path) ? readFileSync(path, "utf8") : ""
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  sb.env.SUPERVISOR_SUPERVISOR_HOOK_TIMEOUT = "1s"
  dir = sb.project(
    "app",
    `
[daemons.web]
run = "exec sleep 300"
ready_delay = 0.2
env = { MODE = "dev" }
[daemons.web.hooks]
${allHooks("web.log")}

[daemons.flaky]
run = "echo crashing; exit 3"
retry = 2
[daemons.flaky.hooks]
${allHooks("flaky.log")}

[daemons.task]
run = "exit 0"
[daemons.task.hooks]
${allHooks("task.log")}

[daemons.chatty]
run = '''printf 'boot\\n\\033[31mERROR\\033[0m one\\nfine\\nERROR two\\n'; sleep 3; echo 'ERROR three'; echo 'took 1234ms'; exec sleep 300'''
ready_delay = 0.2
hooks.on_output = { run = 'echo "$SUPERVISOR_MATCHED_LINE" >> errors.log', filter = "ERROR" }

[daemons.slow]
run = '''echo 'took 12ms'; echo 'took 2500ms'; exec sleep 300'''
ready_delay = 0.2
hooks.on_output = { run = 'echo "$SUPERVISOR_MATCHED_LINE" >> slow.log', regex = "took [0-9]{4,}ms", debounce = "0s" }

[daemons.late]
run = '''if [ -f late.second ]; then echo 'ERROR new'; exec sleep 300; fi; touch late.second; echo 'first run'; while [ ! -f late.go ]; do sleep 0.05; done; seq 1 20000 | sed 's/^/ERROR old /'; exit 3'''
ready_delay = 0.2
hooks.on_output = { run = 'echo "$SUPERVISOR_MATCHED_LINE" >> late.log', filter = "ERROR" }

[daemons.hang]
run = "exec sleep 300"
ready_delay = 0.2
hooks.on_ready = "echo hook-says-hi; echo to-stderr >&2; exec sleep 30"

[daemons.down]
run = "exec sleep 300"
ready_delay = 0.2
[daemons.down.hooks]
${allHooks("down.log")}
`,
  )
})
afterAll(() => sb.destroy())

const expectOk = (args: Array<string>, status = 0) => {
  const r = sb.cli(args, dir)
  expect(r.status, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`).toBe(status)
  expect(r.stderr).not.toMatch(STACK_LINE)
  return r
}

describe("hooks (e2e)", () => {
  it(
    "start fires on_ready; stop fires on_stop and on_exit (reason stop, code 143); dir and env are the daemon's",
    async () => {
      expectOk(["start", "web"])
      const [ready] = await waitLines("web.log", 1)
      expect(ready).toBe(`on_ready id=app/web ns=app retry=0 code= reason= mode=dev pwd=${dir}`)
      expectOk(["stop", "web"])
      const lines = await waitLines("web.log", 3)
      expect(lines.slice(1).sort()).toEqual(
        [
          `on_exit id=app/web ns=app retry=0 code=143 reason=stop mode=dev pwd=${dir}`,
          `on_stop id=app/web ns=app retry=0 code=143 reason=stop mode=dev pwd=${dir}`,
        ].sort(),
      )
    },
    T,
  )

  it(
    "a crash loop: on_retry with the count rising, then once no retry is left on_exit (fail) and on_fail",
    async () => {
      const r = expectOk(["start", "flaky"], 1)
      expect(r.stderr).toContain("after 2 retries")
      const lines = await waitLines("flaky.log", 4)
      const tail = ` id=app/flaky ns=app`
      // each retry's hook before the next run; on_exit and on_fail fire together at the end, as
      // concurrent processes, so the order in which they write is theirs (sorted here)
      expect(lines.slice(0, 2)).toEqual([
        `on_retry${tail} retry=1 code=3 reason= mode= pwd=${dir}`,
        `on_retry${tail} retry=2 code=3 reason= mode= pwd=${dir}`,
      ])
      expect(lines.slice(2).sort()).toEqual([
        `on_exit${tail} retry=2 code=3 reason=fail mode= pwd=${dir}`,
        `on_fail${tail} retry=2 code=3 reason= mode= pwd=${dir}`,
      ])
    },
    T,
  )

  it(
    "a one-shot task that exits 0 fires on_exit with reason exit",
    async () => {
      expectOk(["start", "task"])
      expect(await waitLines("task.log", 1)).toEqual([
        `on_exit id=app/task ns=app retry=0 code=0 reason=exit mode= pwd=${dir}`,
      ])
    },
    T,
  )

  it(
    "on_output: filter (ANSI stripped), debounced to once a second; regex with debounce 0",
    async () => {
      expectOk(["start", "chatty", "slow"])
      // "ERROR one" fires; "ERROR two" falls in the same second; "ERROR three" comes 3 s later
      // (lines are timed as the supervisor reads them: the first ones may be read late, while
      // it starts the two daemons)
      expect(await waitLines("errors.log", 2)).toEqual(["ERROR one", "ERROR three"])
      expect(await waitLines("slow.log", 1)).toEqual(["took 2500ms"])
    },
    T,
  )

  it(
    "a hook's output goes to the supervisor log; a hanging hook is killed at the timeout",
    async () => {
      expectOk(["start", "hang"])
      const log = await waitFor("the hook's kill in supervisor.log", () => {
        const text = supervisorLog()
        return text.includes("[hook app/hang on_ready] still running after 1s: killed") ? text : undefined
      })
      expect(log).toContain("[hook app/hang on_ready] hook-says-hi")
      expect(log).toContain("[hook app/hang on_ready] to-stderr")
    },
    T,
  )

  it(
    "docs/hooks.md examples run",
    async () => {
      const examples = docExamples(readFileSync(join(__dirname, "../../docs/hooks.md"), "utf8"))
      const runnable = examples.filter((e) => e.runs.length > 0)
      expect(runnable.length).toBeGreaterThanOrEqual(3)
      const docs = sb.project("myapp", `${runnable.map((e) => e.toml).join("\n\n")}\n`)
      for (const e of runnable)
        for (const run of e.runs) {
          const r = await sb.cliAsync(run.args, docs)
          expect(r.status, `docs/hooks.md:${e.line}: ${r.stdout}\n${r.stderr}`).toBe(run.status)
        }
      const read = (f: string) => {
        const p = join(docs, f)
        return existsSync(p) ? readFileSync(p, "utf8").trim().split("\n") : []
      }
      const readN = (f: string, n: number) =>
        waitFor(`${n} lines in ${f}`, () => {
          const lines = read(f)
          return lines.length >= n ? lines : undefined
        })
      const hooked = await readN("hooks.log", 3)
      expect(hooked[0]).toBe("ready myapp/hooked retry=0")
      expect(hooked.slice(1).sort()).toEqual(["exit reason=stop code=143", "stop code=143"])
      expect(await readN("flaky.log", 2)).toEqual(["retry 1 after exit 3", "gave up: exit 3"])
      expect(await readN("errors.log", 1)).toEqual(["ERROR: disk full"])
    },
    T,
  )

  it(
    "on_output sees only the new run: not the lines the last one wrote while the supervisor was down",
    async () => {
      expectOk(["start", "late"])
      const [pid] = supervisorPids(sb.stateDir)
      expect(pid).toBeDefined()
      process.kill(pid as number, "SIGKILL")
      await waitFor("the supervisor to die", () => supervisorPids(sb.stateDir).length === 0)
      // the first run prints 20000 matching lines and exits, unseen
      writeFileSync(join(dir, "late.go"), "")
      await waitFor("the first run to end", () => daemonPids(sb.stateDir, "app/late").length === 0)
      // The next start (a new supervisor) indexes those lines now, before the new run's start
      // is noted. They come first in id order: had one counted, the hook's first line was it.
      expectOk(["start", "late"])
      expect(await waitLines("late.log", 1)).toEqual(["ERROR new"])
      const logs = sb.cli(["logs", "late", "-n", "2", "--no-timestamp", "--raw"], dir)
      expect(logs.stdout).toContain("ERROR old 20000")
      expect(logs.stdout).toContain("ERROR new")
      expectOk(["stop", "late"])
    },
    T,
  )

  // Last: it stops the supervisor.
  it(
    "supervisor shutdown fires on_exit (reason stop) and not on_stop, and waits for the hooks",
    async () => {
      expectOk(["start", "down"])
      await waitLines("down.log", 1)
      expectOk(["supervisor", "stop"])
      // The hooks ran before the supervisor exited: the lines are there once it is gone.
      await waitFor("the supervisor to exit", () => supervisorPids(sb.stateDir).length === 0)
      const lines = linesOf("down.log")
      expect(lines).toEqual([
        `on_ready id=app/down ns=app retry=0 code= reason= mode= pwd=${dir}`,
        `on_exit id=app/down ns=app retry=0 code=143 reason=stop mode= pwd=${dir}`,
      ])
    },
    T,
  )
})
