import { spawn as spawnChild } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Layer, Option, Schema } from "effect"
import { build } from "esbuild"
import { ProcessTreeNode } from "../../src/domain/ProcessTree.js"
import { makeNodeProcessService, ProcessServiceLive } from "../../src/process/NodeProcessService.js"
import { type ProcessHandle, ProcessService, type SpawnRequest } from "../../src/process/ProcessService.js"
import { SpawnHelpersLive } from "../../src/process/spawnHelper.js"
import { liveGroupMembers, PATH, readText, statOf, tempDir, waitFor } from "./helpers.js"

const here = path.dirname(fileURLToPath(import.meta.url))

/** A daemon in `dir` writing to `dir/out.log`; its whole group is SIGKILLed when the scope closes. */
const daemon = (dir: string, command: string, overrides: Partial<SpawnRequest> = {}) =>
  Effect.gen(function* () {
    const svc = yield* ProcessService
    const req: SpawnRequest = {
      id: "test/daemon",
      command,
      shell: ["sh", "-c"],
      cwd: dir,
      env: { PATH },
      outputFile: path.join(dir, "out.log"),
      ...overrides,
    }
    const handle = yield* Effect.acquireRelease(svc.spawn(req), (h) => svc.signalGroup(h.pid, "SIGKILL"))
    return { svc, handle, out: req.outputFile }
  })

/** Waits until the daemon printed `line` (scripts print `ready` once their traps are installed). */
const printed = (out: string, line: string) =>
  waitFor(`${JSON.stringify(line)} in ${out}`, () => readText(out).split("\n").includes(line))

const exitWithin = (handle: ProcessHandle, within: Duration.DurationInput = "5 seconds") =>
  handle.exit.pipe(Effect.timeoutFail({ duration: within, onTimeout: () => new Error("no exit") }))

const MODES = ["the spawn helper", "the Perl spawn helper", "Node"] as const
/** SUPERVISOR_SPAWN_HELPER for each mode. */
const CHOICE = { "the spawn helper": "1", "the Perl spawn helper": "perl", Node: "0" } as const

// Every behaviour holds whichever forks the daemons: the spawn helper (the built C one, or Perl's),
// or Node itself.
describe.each(MODES)("NodeProcessService, daemons forked by %s", (mode) => {
  const layer =
    mode === "Node"
      ? Layer.succeed(ProcessService, makeNodeProcessService())
      : ProcessServiceLive.pipe(
          Layer.provide(SpawnHelpersLive({ ...process.env, SUPERVISOR_SPAWN_HELPER: CHOICE[mode] })),
        )
  const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.provide(layer))

  describe("spawn", () => {
    it.scopedLive(
      "appends stdout and stderr to the output file in write order",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            fs.writeFileSync(path.join(dir, "out.log"), "earlier run\n")
            const { handle, out } = yield* daemon(dir, "echo out1; echo err1 >&2; echo out2; echo err2 >&2")
            expect(yield* exitWithin(handle)).toEqual({ code: 0, signal: null, known: true })
            expect(readText(out)).toBe("earlier run\nout1\nerr1\nout2\nerr2\n")
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "creates the output file without access for others",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { handle, out } = yield* daemon(dir, "echo hi")
            yield* exitWithin(handle)
            const mode = fs.statSync(out).mode & 0o777
            expect(mode & 0o600).toBe(0o600)
            expect(mode & 0o137).toBe(0) // never more than rw-r-----
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "applies the environment (and only it) and the working directory",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { handle, out } = yield* daemon(
              dir,
              `printf "%s\\n" "$GREETING" "$(pwd)" "\${HOME-unset}"`,
              {
                env: { PATH, GREETING: "hello world" },
              },
            )
            yield* exitWithin(handle)
            expect(readText(out)).toBe(`hello world\n${dir}\nunset\n`)
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "gives the daemon /dev/null as stdin",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { handle, out } = yield* daemon(dir, "readlink /proc/self/fd/0; cat; echo done")
            expect(yield* exitWithin(handle)).toEqual({ code: 0, signal: null, known: true })
            expect(readText(out)).toBe("/dev/null\ndone\n")
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "starts the daemon as the leader of its own session and process group",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { handle } = yield* daemon(dir, "sleep 100")
            const stat = statOf(handle.pid)
            expect(stat?.pgrp).toBe(handle.pid)
            expect(stat?.session).toBe(handle.pid)
            // the daemon's parent: this process, or the helper it started
            if (mode === "Node") expect(stat?.ppid).toBe(process.pid)
            else {
              expect(readText(`/proc/${stat?.ppid}/comm`).trim()).toBe(
                mode === "the Perl spawn helper" ? "perl" : "spawn-helper",
              )
              expect(statOf(stat?.ppid ?? 0)?.ppid).toBe(process.pid)
            }
            expect(handle.startTime).toMatch(/^\d+$/)
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "fails with a SpawnError naming the daemon when the working directory does not exist",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const missing = path.join(dir, "no-such-dir")
            const error = yield* Effect.flip(daemon(dir, "true", { id: "shop/api", cwd: missing }))
            expect(error._tag).toBe("SpawnError")
            expect(error.id).toBe("shop/api")
            expect(error.command).toBe("true")
            expect(error.message).toBe(
              `cannot start daemon shop/api: working directory ${missing} does not exist`,
            )
            expect(fs.existsSync(path.join(dir, "out.log"))).toBe(false)
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "fails with a SpawnError when the shell is missing or the output file cannot be opened",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const noShell = yield* Effect.flip(daemon(dir, "true", { shell: ["/no/such/sh", "-c"] }))
            expect(noShell.message).toMatch(
              /^cannot start daemon test\/daemon: shell "\/no\/such\/sh" not found/,
            )
            const noDir = path.join(dir, "missing", "out.log")
            const noFile = yield* Effect.flip(daemon(dir, "true", { outputFile: noDir }))
            expect(noFile.message).toMatch(
              new RegExp(`^cannot start daemon test/daemon: cannot open output file ${noDir}: ENOENT`),
            )
            const noCommand = yield* Effect.flip(daemon(dir, "true", { shell: [] }))
            expect(noCommand.message).toBe("cannot start daemon test/daemon: no shell configured")
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "execs `exec <plain words>` without the shell, and lets the shell run what cannot be exec'd",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            // without a shell in between, the process's parent is whoever forked it, not `sh`
            const direct = yield* daemon(dir, "exec sleep 100")
            expect(readText(`/proc/${direct.handle.pid}/cmdline`).split("\0")).toEqual(["sleep", "100", ""])
            expect(readText(`/proc/${statOf(direct.handle.pid)?.ppid}/comm`).trim()).not.toBe("sh")
            // a script without #! is no executable: `sh` runs it as a script, as it always did
            const script = path.join(dir, "no-shebang")
            fs.writeFileSync(script, "echo ran by the shell\n")
            fs.chmodSync(script, 0o755)
            const bySh = yield* daemon(dir, `exec ./no-shebang`, { outputFile: path.join(dir, "script.log") })
            expect(yield* exitWithin(bySh.handle)).toEqual({ code: 0, signal: null, known: true })
            expect(readText(bySh.out)).toBe("ran by the shell\n")
            // the environment is the one the shell would have given it: PWD included
            const viaExec = yield* daemon(dir, "exec env", { outputFile: path.join(dir, "env1.log") })
            const viaShell = yield* daemon(dir, "env", { outputFile: path.join(dir, "env2.log") })
            yield* exitWithin(viaExec.handle)
            yield* exitWithin(viaShell.handle)
            const sorted = (text: string) => text.split("\n").sort()
            expect(sorted(readText(viaExec.out))).toEqual(sorted(readText(viaShell.out)))
            expect(readText(viaExec.out)).toContain(`PWD=${fs.realpathSync(dir)}\n`)
            // unknown to PATH: the shell says so, with its own exit status
            const missing = yield* daemon(dir, "exec no-such-program-anywhere", {
              outputFile: path.join(dir, "missing.log"),
            })
            expect(yield* exitWithin(missing.handle)).toEqual({ code: 127, signal: null, known: true })
            expect(readText(missing.out)).toMatch(/no-such-program-anywhere: not found/)
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "refuses what cannot be spawned in Node's words: a NUL byte, an environment too large to exec",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const nul = yield* Effect.flip(daemon(dir, "true", { env: { PATH, X: "a\u0000b" } }))
            expect(nul.message).toMatch(/^cannot start daemon test\/daemon: .*without null bytes/)
            const big = yield* Effect.flip(daemon(dir, "true", { env: { PATH, BIG: "x".repeat(4 << 20) } }))
            expect(big.message).toMatch(/E2BIG/)
            expect(big.message).not.toContain("[object Object]")
            // and the next daemon starts as usual
            const { handle, out } = yield* daemon(dir, "echo fine")
            expect(yield* exitWithin(handle)).toEqual({ code: 0, signal: null, known: true })
            expect(readText(out)).toBe("fine\n")
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "runs the daemon as another user when root, and fails clearly otherwise",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const nobody = { uid: 65534, gid: 65534 }
            if (process.getuid?.() === 0) {
              const { handle, out } = yield* daemon(dir, "id -u; id -g", { ...nobody, cwd: "/" })
              yield* exitWithin(handle)
              expect(readText(out)).toBe("65534\n65534\n")
              // the temp dir is 0700 root: nobody cannot exec a shell inside it
              const shell = path.join(dir, "sh")
              fs.symlinkSync("/bin/sh", shell)
              const denied = yield* Effect.flip(
                daemon(dir, "true", { ...nobody, cwd: "/", shell: [shell, "-c"] }),
              )
              expect(denied.message).toBe(
                `cannot start daemon test/daemon: permission denied executing shell "${shell}" or entering / as uid 65534 and gid 65534`,
              )
            } else {
              const error = yield* Effect.flip(daemon(dir, "true", { uid: 0, gid: 0 }))
              expect(error.message).toMatch(
                /^cannot start daemon test\/daemon: not permitted to run as uid 0/,
              )
            }
          }),
        ),
      10_000,
    )
  })

  describe("exit", () => {
    it.scopedLive(
      "reports the exit code, or the signal that ended the process",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const coded = yield* daemon(dir, "exit 3")
            expect(yield* exitWithin(coded.handle)).toEqual({ code: 3, signal: null, known: true })
            const signalled = yield* daemon(dir, "kill -USR1 $$")
            expect(yield* exitWithin(signalled.handle)).toEqual({
              code: null,
              signal: "SIGUSR1",
              known: true,
            })
          }),
        ),
      10_000,
    )
  })

  describe("stop", () => {
    it.scoped(
      "ends at the daemon's exit event, with no pause after it",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { svc, handle } = yield* daemon(dir, "exec sleep 100")
            // The TestClock never moves here: a pause or a poll in the stop would never end.
            const status = yield* svc.stop(handle, "SIGTERM", "5 seconds")
            expect(status).toEqual({ code: null, signal: "SIGTERM", known: true })
            expect(liveGroupMembers(handle.pid)).toEqual([])
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "stops the whole process group with SIGTERM",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { svc, handle } = yield* daemon(dir, "sleep 100 & sleep 100; wait")
            yield* waitFor("three group members", () => liveGroupMembers(handle.pid).length === 3)
            expect(yield* svc.groupMembers(handle.pid)).toHaveLength(3)
            // ended by the SIGTERM itself: a group that outlived the timeout would end by SIGKILL
            const status = yield* svc.stop(handle, "SIGTERM", "5 seconds")
            expect(status).toEqual({ code: null, signal: "SIGTERM", known: true })
            expect(liveGroupMembers(handle.pid)).toEqual([])
            expect(yield* svc.groupMembers(handle.pid)).toEqual([])
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "stops a suspended process without waiting for the timeout",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            // A handled signal stays pending while the process is suspended. No member may exit while the
            // group is stopped: the kernel would then SIGHUP the orphaned, stopped group.
            const { svc, handle, out } = yield* daemon(
              dir,
              "trap 'exit 7' TERM; sleep 100 & echo ready; wait",
            )
            yield* printed(out, "ready")
            yield* waitFor("sleep to be exec'd", () =>
              liveGroupMembers(handle.pid).some((pid) => statOf(pid)?.comm === "sleep"),
            )
            yield* svc.signalGroup(handle.pid, "SIGSTOP")
            yield* waitFor("the stopped state", () => statOf(handle.pid)?.state === "T")
            // exit 7 is the trap's: the process was resumed and handled the signal, where a wait for
            // the timeout would have ended in SIGKILL
            expect(yield* svc.stop(handle, "SIGTERM", "5 seconds")).toEqual({
              code: 7,
              signal: null,
              known: true,
            })
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "SIGKILLs a group that ignores the stop signal once the timeout has passed",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { svc, handle, out } = yield* daemon(
              dir,
              'trap "" TERM; echo ready; while :; do sleep 0.1; done',
            )
            yield* printed(out, "ready")
            const started = Date.now()
            const status = yield* svc.stop(handle, "SIGTERM", "1 second")
            const elapsed = Date.now() - started
            expect(elapsed).toBeGreaterThanOrEqual(990)
            expect(status).toEqual({ code: null, signal: "SIGKILL", known: true })
            expect(liveGroupMembers(handle.pid)).toEqual([])
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "sends the configured signal",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const marker = path.join(dir, "marker")
            const { svc, handle, out } = yield* daemon(
              dir,
              'trap \'echo "got INT" > "$MARKER"; exit 0\' INT; echo ready; while :; do sleep 0.1; done',
              { env: { PATH, MARKER: marker } },
            )
            yield* printed(out, "ready")
            const status = yield* svc.stop(handle, "SIGINT", "5 seconds")
            expect(status).toEqual({ code: 0, signal: null, known: true })
            expect(readText(marker)).toBe("got INT\n")
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "a member that outlives the leader and ignores the stop signal is SIGKILLed once the timeout has passed",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            // the leader exits at SIGTERM; its background child does not
            const { svc, handle, out } = yield* daemon(
              dir,
              "sh -c 'trap \"\" TERM; echo child; while :; do sleep 0.1; done' & trap 'exit 0' TERM; echo ready; while :; do sleep 0.1; done",
            )
            yield* printed(out, "ready")
            yield* printed(out, "child")
            const began = Date.now()
            const status = yield* svc.stop(handle, "SIGTERM", "1 second")
            // the leader's own exit, told once the group was gone (after the SIGKILL)
            expect(status).toEqual({ code: 0, signal: null, known: true })
            expect(Date.now() - began).toBeGreaterThanOrEqual(1_000 - 1)
            expect(liveGroupMembers(handle.pid)).toEqual([])
          }),
        ),
      15_000,
    )

    it.scopedLive(
      "cleans up what is left of the group when the tracked process already exited",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { svc, handle } = yield* daemon(dir, "sleep 100 & exit 0")
            expect(yield* exitWithin(handle)).toEqual({ code: 0, signal: null, known: true })
            yield* waitFor("the orphaned sleep", () => liveGroupMembers(handle.pid).length === 1)
            expect(yield* svc.stop(handle, "SIGTERM", "5 seconds")).toEqual({
              code: 0,
              signal: null,
              known: true,
            })
            expect(liveGroupMembers(handle.pid)).toEqual([])
            // and once more, with nothing left at all
            expect(yield* svc.stop(handle, "SIGTERM", "5 seconds")).toEqual({
              code: 0,
              signal: null,
              known: true,
            })
          }),
        ),
      10_000,
    )
  })

  describe("adopt and isAlive", () => {
    it.scopedLive(
      "finds the exact live process and rejects a wrong start time",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { svc, handle } = yield* daemon(dir, "sleep 100")
            expect(yield* svc.isAlive(handle.pid, handle.startTime)).toBe(true)
            expect(yield* svc.isAlive(handle.pid, "1")).toBe(false)
            expect(Option.isNone(yield* svc.adopt(handle.pid, "1"))).toBe(true)
            expect(Option.isNone(yield* svc.adopt(99_999_999, "1"))).toBe(true)
            const adopted = Option.getOrThrow(yield* svc.adopt(handle.pid, handle.startTime))
            expect(adopted.pid).toBe(handle.pid)
            expect(adopted.startTime).toBe(handle.startTime)

            yield* svc.signalGroup(handle.pid, "SIGKILL")
            expect(yield* exitWithin(adopted)).toEqual({ code: null, signal: null, known: false })
            expect(yield* svc.isAlive(handle.pid, handle.startTime)).toBe(false)
            expect(Option.isNone(yield* svc.adopt(handle.pid, handle.startTime))).toBe(true)
          }),
        ),
      10_000,
    )

    it.scopedLive(
      "a daemon keeps running and writing after the process that spawned it is SIGKILLed, and can be adopted and stopped",
      () =>
        live(
          Effect.gen(function* () {
            const svc = yield* ProcessService
            const dir = yield* tempDir
            const bundle = path.join(dir, "spawner.mjs")
            yield* Effect.promise(() =>
              build({
                entryPoints: [path.join(here, "fixtures", "spawner.ts")],
                bundle: true,
                platform: "node",
                format: "esm",
                outfile: bundle,
                logLevel: "silent",
              }),
            )
            const out = path.join(dir, "out.log")
            const spawner = yield* Effect.acquireRelease(
              Effect.sync(() =>
                spawnChild(process.execPath, [bundle, out, dir], {
                  stdio: ["ignore", "pipe", "inherit"],
                  env: { ...process.env, SUPERVISOR_SPAWN_HELPER: CHOICE[mode] },
                }),
              ),
              (child) => Effect.sync(() => child.kill("SIGKILL")),
            )
            let reported = ""
            spawner.stdout.on("data", (chunk: Buffer) => {
              reported += chunk.toString()
            })
            const spawnerExited = new Promise((resolve) => spawner.once("exit", resolve))
            const { pid, startTime } = yield* waitFor(
              "the spawner to report the daemon",
              () => reported.includes("\n") && (JSON.parse(reported) as { pid: number; startTime: string }),
              // a Node start loading a bundle of Effect, then a spawn: seconds on a busy machine
              "20 seconds",
            )
            yield* Effect.addFinalizer(() => svc.signalGroup(pid, "SIGKILL"))
            // forked by the spawner, or by the helper it started (which ends with it)
            const parent = statOf(pid)?.ppid ?? 0
            expect(mode === "Node" ? parent : statOf(parent)?.ppid).toBe(spawner.pid)

            spawner.kill("SIGKILL")
            yield* Effect.promise(() => spawnerExited)
            const ticksAtKill = readText(out).split("\n").length
            yield* waitFor("five more lines from the orphaned daemon", () => {
              return readText(out).split("\n").length >= ticksAtKill + 5
            })
            expect(statOf(pid)?.ppid).not.toBe(parent)
            expect(yield* svc.isAlive(pid, startTime)).toBe(true)

            const adopted = Option.getOrThrow(yield* svc.adopt(pid, startTime))
            const status = yield* svc.stop(adopted, "SIGTERM", "5 seconds")
            expect(status).toEqual({ code: null, signal: null, known: false })
            expect(liveGroupMembers(pid)).toEqual([])
          }),
        ),
      30_000,
    )
  })

  describe("tree", () => {
    it.scopedLive(
      "returns the daemon with its children",
      () =>
        live(
          Effect.gen(function* () {
            const dir = yield* tempDir
            const { svc, handle } = yield* daemon(dir, "sleep 100 & sleep 100 & wait")
            // the shell too must have reached `wait`: on a busy machine it can still be running
            yield* waitFor("two sleeping children and the shell waiting on them", () => {
              const members = liveGroupMembers(handle.pid).filter((pid) => pid !== handle.pid)
              return (
                members.length === 2 &&
                members.every((pid) => statOf(pid)?.comm === "sleep") &&
                statOf(handle.pid)?.state === "S"
              )
            })
            const root = Option.getOrThrow(yield* svc.tree(handle.pid))
            expect(Schema.is(ProcessTreeNode)(root)).toBe(true)
            expect(root).toMatchObject({
              pid: handle.pid,
              name: "sh",
              exe: fs.realpathSync("/bin/sh"),
              thread_count: 1,
              status: "Sleep",
            })
            expect(root.memory_bytes).toBeGreaterThan(0)
            expect(root.virtual_memory_bytes).toBeGreaterThanOrEqual(root.memory_bytes)
            expect(root.uptime_secs).toBeGreaterThanOrEqual(0)
            expect(root.cpu_percent).toBeGreaterThanOrEqual(0)
            expect(root.children.map((c) => c.name)).toEqual(["sleep", "sleep"])
            for (const child of root.children) {
              expect(child.children).toEqual([])
              expect(path.basename(child.exe)).toBe("sleep")
            }
            expect(Option.isNone(yield* svc.tree(99_999_999))).toBe(true)
          }),
        ),
      10_000,
    )

    it.live(
      "computes CPU usage, threads and the executable of a busy process",
      () =>
        live(
          Effect.gen(function* () {
            const self = Option.getOrThrow(yield* (yield* ProcessService).tree(process.pid))
            expect(self.exe).toBe(fs.realpathSync(process.execPath))
            expect(self.cpu_percent).toBeGreaterThan(0)
            expect(self.thread_count).toBeGreaterThan(1)
            expect(self.status).toMatch(/^(Run|Sleep)$/)
          }),
        ),
      10_000,
    )
  })
})
