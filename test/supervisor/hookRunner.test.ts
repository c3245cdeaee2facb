import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { type HookCommand, liveHookRunner } from "../../src/supervisor/hooks/HookRunner.js"
import { alive, recordingSignals } from "../process/helpers.js"

const signals = recordingSignals()

const command = (run: string, extra: Partial<HookCommand> = {}): HookCommand => ({
  daemon: "app/web",
  hook: "on_ready",
  run,
  shell: ["sh", "-c"],
  cwd: os.tmpdir(),
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GREETING: "hello" },
  timeout: Duration.seconds(10),
  ...extra,
})

describe("liveHookRunner (real processes)", () => {
  it.live("runs in the given dir and env; each output line goes to the log with a prefix", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "hook-runner-"))
      const log: Array<string> = []
      const runner = liveHookRunner((l) => log.push(l), signals.service)
      const result = yield* runner.run(
        command('echo "$GREETING from $(pwd)"; echo oops >&2; printf partial', { cwd: dir }),
      )
      expect(result).toEqual({ _tag: "Exited", code: 0, signal: null })
      // Output is read until the pipes end, which can come just after the exit.
      for (let i = 0; i < 200 && log.length < 3; i++) yield* Effect.sleep("10 millis")
      expect([...log].sort()).toEqual(
        [
          `[hook app/web on_ready] hello from ${dir}`,
          "[hook app/web on_ready] oops",
          "[hook app/web on_ready] partial",
        ].sort(),
      )
      fs.rmSync(dir, { recursive: true, force: true })
    }),
  )

  it.live("a non-zero exit is logged with its code", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const result = yield* liveHookRunner((l) => log.push(l), signals.service).run(
        command("exit 3", { hook: "on_fail" }),
      )
      expect(result).toEqual({ _tag: "Exited", code: 3, signal: null })
      expect(log).toEqual(["[hook app/web on_fail] exited with code 3"])
    }),
  )

  it.live("a hook still running at its timeout has its whole process group killed", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "hook-runner-"))
      const pidFile = nodePath.join(dir, "child.pid")
      const log: Array<string> = []
      const result = yield* liveHookRunner((l) => log.push(l), signals.service).run(
        // long enough for the shell to have written the pid on a busy machine
        command(`sleep 60 & echo $! > ${pidFile}; wait`, { timeout: Duration.seconds(2), hook: "on_exit" }),
      )
      expect(result).toEqual({ _tag: "TimedOut" })
      // the kill went through the process service, to the hook's whole group
      expect(signals.sent.at(-1)).toEqual({ pgid: expect.any(Number), signal: "SIGKILL" })
      expect(log).toEqual([
        "[hook app/web on_exit] still running after 2s: killed (settings.supervisor.hook_timeout)",
      ])
      const child = Number(fs.readFileSync(pidFile, "utf8").trim())
      for (let i = 0; i < 200 && alive(child); i++) yield* Effect.sleep("10 millis")
      expect(alive(child)).toBe(false)
      fs.rmSync(dir, { recursive: true, force: true })
    }),
  )

  it.live("a hook that cannot be spawned (missing dir) is reported, not thrown", () =>
    Effect.gen(function* () {
      const log: Array<string> = []
      const result = yield* liveHookRunner((l) => log.push(l), signals.service).run(
        command("true", { cwd: "/nonexistent/dir/for/hook" }),
      )
      expect(result._tag).toBe("SpawnFailed")
      expect(log[0]).toMatch(/^\[hook app\/web on_ready\] could not be started: /)
    }),
  )
})
