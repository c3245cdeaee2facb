// `pty = true` at the process level: the daemon under a pseudo-terminal, still the tracked process
// (its pid, session and group), its output copied whole to the log file by a holder outside it.
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { makeNodeProcessService, ProcessServiceLive } from "../../src/process/NodeProcessService.js"
import { ProcessService, type SpawnRequest } from "../../src/process/ProcessService.js"
import { ptyArgv, ptyEnv } from "../../src/process/pty.js"
import { SpawnHelpersLive } from "../../src/process/spawnHelper.js"
import { PATH, readText, statOf, tempDir, waitFor } from "./helpers.js"

const ID = "test/tty"

const spawnPty = (dir: string, command: string, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const svc = yield* ProcessService
    const req: SpawnRequest = {
      id: ID,
      command,
      shell: ["sh", "-c"],
      cwd: dir,
      env: { PATH, ...env },
      outputFile: path.join(dir, "out.log"),
      pty: true,
    }
    const handle = yield* Effect.acquireRelease(svc.spawn(req), (h) => svc.signalGroup(h.pid, "SIGKILL"))
    return { svc, handle, out: req.outputFile }
  })

/** The pids of live holders of this test's daemons (`supervisor-pty <id>`). */
const holders = (): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const st = statOf(pid)
        return (
          st !== undefined &&
          st.state !== "Z" &&
          fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(`supervisor-pty ${ID}`)
        )
      } catch {
        return false
      }
    })

describe("ptyArgv and ptyEnv", () => {
  it("run the file through perl with the ioctl numbers, the size, the daemon's ID and its input pipe", () => {
    const r = ptyArgv("SCRIPT", "p/d", "/logs/p--d.in", "/bin/sh", ["sh", "-c", "run"], {
      PATH,
      COLUMNS: "120",
      LINES: "40",
    })
    if ("problem" in r) throw new Error(r.problem)
    expect(r.file).toMatch(/\/perl$/)
    expect(r.argv.slice(0, 4)).toEqual(["perl", "-e", "SCRIPT", "--"])
    expect(r.argv.slice(8)).toEqual(["40", "120", "p/d", "/logs/p--d.in", "/bin/sh", "sh", "-c", "run"])
  })

  it("without perl, says why", () => {
    const r = ptyArgv("S", "p/d", "", "/bin/sh", ["sh"], { PATH: "/nonexistent" })
    // /usr/bin/perl is still found outside PATH; only a machine without perl at all says so
    if ("problem" in r) expect(r.problem).toContain("perl-base")
    else expect(r.file).toBe("/usr/bin/perl")
  })

  it("TERM: set when unset or dumb, kept otherwise", () => {
    expect(ptyEnv({}).TERM).toBe("xterm-256color")
    expect(ptyEnv({ TERM: "dumb" }).TERM).toBe("xterm-256color")
    expect(ptyEnv({ TERM: "screen" }).TERM).toBe("screen")
  })
})

describe.each(["the spawn helper", "Node"] as const)("a pty daemon forked by %s", (mode) => {
  const layer =
    mode === "Node"
      ? Layer.succeed(ProcessService, makeNodeProcessService())
      : ProcessServiceLive.pipe(Layer.provide(SpawnHelpersLive()))
  const live = <A, E, R>(effect: Effect.Effect<A, E, R>) => effect.pipe(Effect.provide(layer))

  it.scopedLive("sees a terminal on stdin, stdout and stderr; 24x80; TERM; no CR added; its exit code", () =>
    live(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const { handle, out } = yield* spawnPty(
          dir,
          '[ -t 0 ] && [ -t 1 ] && [ -t 2 ] && echo "tty on 0 1 2"; stty size; echo "TERM=$TERM"; echo err >&2; exit 7',
        )
        expect(yield* handle.exit).toEqual({ code: 7, signal: null, known: true })
        yield* waitFor(
          "the holder to finish",
          () => readText(out).includes("err\n") && holders().length === 0,
        )
        expect(readText(out)).toBe("tty on 0 1 2\n24 80\nTERM=xterm-256color\nerr\n")
      }),
    ),
  )

  it.scopedLive("is the session leader of its terminal; the holder is in a session of its own", () =>
    live(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const { handle, svc, out } = yield* spawnPty(dir, "echo up; exec sleep 30")
        yield* waitFor("up", () => readText(out) === "up\n")
        const st = statOf(handle.pid)!
        expect(st.session).toBe(handle.pid)
        expect(st.pgrp).toBe(handle.pid)
        expect(fs.readlinkSync(`/proc/${handle.pid}/fd/1`)).toMatch(/^\/dev\/pts\/\d+$/)
        const [holder] = yield* waitFor("the holder", () => (holders().length === 1 ? holders() : false))
        const hs = statOf(holder!)!
        expect(hs.session).not.toBe(handle.pid)
        expect(hs.pgrp).not.toBe(handle.pid)
        expect(fs.readlinkSync(`/proc/${holder}/fd/1`)).toBe(out)
        // a stop signals the daemon's group: the holder outlives it only to drain, then ends
        yield* svc.signalGroup(handle.pid, "SIGTERM")
        expect((yield* handle.exit).signal).toBe("SIGTERM")
        yield* waitFor("the holder to end", () => holders().length === 0)
      }),
    ),
  )

  it.scopedLive("a burst written right before the exit reaches the file whole", () =>
    live(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const { handle, out } = yield* spawnPty(dir, "seq 1 20000")
        expect((yield* handle.exit).code).toBe(0)
        yield* waitFor("the holder to finish", () => holders().length === 0)
        const lines = readText(out).split("\n")
        expect(lines.length).toBe(20001)
        expect(lines[0]).toBe("1")
        expect(lines[19999]).toBe("20000")
      }),
    ),
  )
})
