/**
 * Setting a watcher up: `auto` falls back to polling; a watcher that cannot be set up is reported
 * in the daemon's log and its entry (`status`), tried again, and cleared once it works.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { type Backend, openWatcher } from "../../../src/automation/watch/fileWatcher.js"
import { definition, startReady } from "../../supervisor/helpers.js"
import { configurable, TIMING, WEB } from "./fakes.js"

describe("watcher setup", () => {
  /** A backend whose native watching fails before it is ready (as with no inotify watches left). */
  const failingNative = () => {
    const asked: Array<{ poll: boolean; closed: boolean }> = []
    const backend: Backend = (_roots, options, on) => {
      const w = { poll: options.poll, closed: false }
      asked.push(w)
      if (options.poll) on.ready()
      else on.error(Object.assign(new Error("no space left"), { code: "ENOSPC" }))
      return {
        close: async () => {
          w.closed = true
        },
      }
    }
    return { backend, asked }
  }
  const open = (mode: "native" | "auto", backend: Backend) =>
    Effect.gen(function* () {
      const notes: Array<string> = []
      const problems: Array<string | undefined> = []
      yield* openWatcher(
        { id: WEB, baseDir: "/srv", patterns: ["*.js", "src/[x.js"], mode, timing: TIMING },
        {
          backend,
          stateDir: undefined,
          pollInterval: Duration.millis(500),
          changed: () => {},
          note: (text) => Effect.sync(() => void notes.push(text)),
          problem: (text) => Effect.sync(() => void problems.push(text)),
        },
      )
      return { notes, problems }
    })

  it.scoped("auto: native watching that fails falls back to polling, and the log says so", () =>
    Effect.gen(function* () {
      const { backend, asked } = failingNative()
      const { notes, problems } = yield* open("auto", backend)
      // set up in the end: no problem for `status`
      expect(problems).toEqual([undefined])
      expect(asked).toEqual([
        { poll: false, closed: true },
        { poll: true, closed: false },
      ])
      expect(notes).toEqual([
        'watch: ignoring "src/[x.js": "[" without a closing "]"',
        "watch: native file watching failed (ENOSPC: no space left); polling every 500ms instead",
        "watch: watching *.js (polling every 500ms)",
      ])
    }),
  )

  it.scoped("native: a watcher that cannot be set up is reported in the log, nothing fails", () =>
    Effect.gen(function* () {
      const { backend, asked } = failingNative()
      const { notes, problems } = yield* open("native", backend)
      expect(asked).toEqual([{ poll: false, closed: false }])
      expect(notes.at(-1)).toBe("watch: cannot watch files: ENOSPC: no space left")
      expect(problems).toEqual(["cannot watch files: ENOSPC: no space left"])
    }),
  )

  /** Native watching fails while `failing.now` (a directory that cannot be read, say). */
  const failingWhile = () => {
    const failing = { now: true, tries: 0 }
    const backend: Backend = (_roots, _options, on) => {
      failing.tries++
      if (failing.now)
        on.error(Object.assign(new Error("EACCES: permission denied, scandir '/srv'"), { code: "EACCES" }))
      else on.ready()
      return { close: async () => {} }
    }
    return { failing, backend }
  }
  // Node's message starts with its code: it is not said twice
  const failed = "cannot watch files: EACCES: permission denied, scandir '/srv'"
  const until = (done: () => boolean) =>
    Effect.gen(function* () {
      for (let turn = 0; turn < 20_000 && !done(); turn++) yield* Effect.yieldNow()
    })

  it.scoped(
    "status: a watcher that cannot be set up is in the daemon's entry; tried again until it works",
    () =>
      Effect.gen(function* () {
        const { failing, backend } = failingWhile()
        const { h, notes } = yield* configurable({ backend })
        const entry = Effect.map(h.sup.get(WEB), (r) => h.sup.entry(r, false))
        yield* startReady(h.sup, definition("web", { watch: ["bad/*.js"] }))
        yield* until(() => notes.includes(`${WEB}: watch: ${failed}`))
        expect((yield* entry).watch_problem).toBe(failed)
        // nothing else failed: the daemon runs
        expect((yield* entry).status.type).toBe("running")
        // tried again after 1 s, 2 s, 4 s...: the same error is not logged again
        const before = failing.tries
        yield* TestClock.adjust("10 seconds")
        expect(failing.tries).toBeGreaterThan(before)
        expect(notes.filter((n) => n.includes("cannot watch files"))).toEqual([`${WEB}: watch: ${failed}`])
        expect((yield* entry).watch_problem).toBe(failed)
        // the directory can be read now: the next try sets the watcher up, and the problem is gone
        failing.now = false
        yield* TestClock.adjust("1 minute")
        const watching = `${WEB}: watch: watching bad/*.js (native)`
        yield* until(() => notes.at(-1) === watching)
        expect(notes.at(-1)).toBe(watching)
        expect((yield* entry).watch_problem).toBeNull()
      }),
  )

  it.scoped("a loop met on another file is the same problem: logged again only for another error code", () =>
    Effect.gen(function* () {
      // each try stats the two files of a symlink loop in another order; then the directory goes
      const errors = [
        Object.assign(new Error("ELOOP: too many symbolic links encountered, stat '/srv/a.js'"), {
          code: "ELOOP",
          syscall: "stat",
        }),
        Object.assign(new Error("ELOOP: too many symbolic links encountered, stat '/srv/b.js'"), {
          code: "ELOOP",
          syscall: "stat",
        }),
        Object.assign(new Error("EACCES: permission denied, scandir '/srv'"), {
          code: "EACCES",
          syscall: "scandir",
        }),
      ]
      let tries = 0
      const backend: Backend = (_roots, _options, on) => {
        on.error(errors[Math.min(tries, 1 + Math.floor(tries / 4))]!)
        tries++
        return { close: async () => {} }
      }
      const { h, notes } = yield* configurable({ backend })
      const entry = Effect.map(h.sup.get(WEB), (r) => h.sup.entry(r, false))
      yield* startReady(h.sup, definition("web", { watch: ["src/*.js"] }))
      const loop = `cannot watch files: ${errors[0]!.message}`
      yield* until(() => notes.includes(`${WEB}: watch: ${loop}`))
      // tries 2 to 4 meet the loop on b.js: not a new line, and the problem keeps its first words
      yield* TestClock.adjust("10 seconds")
      expect(tries).toBeGreaterThanOrEqual(4)
      expect(notes.filter((n) => n.includes("cannot watch files"))).toEqual([`${WEB}: watch: ${loop}`])
      expect((yield* entry).watch_problem).toBe(loop)
      // another error code is a new problem
      yield* TestClock.adjust("5 minutes")
      const denied = `cannot watch files: ${errors[2]!.message}`
      yield* until(() => notes.includes(`${WEB}: watch: ${denied}`))
      expect(notes.filter((n) => n.includes("cannot watch files"))).toEqual([
        `${WEB}: watch: ${loop}`,
        `${WEB}: watch: ${denied}`,
      ])
      expect((yield* entry).watch_problem).toBe(denied)
    }),
  )

  it.scoped("status: a watcher reopened for an edited watch list clears the problem once it is set up", () =>
    Effect.gen(function* () {
      const { failing, backend } = failingWhile()
      const { h, notes, setDefinitions } = yield* configurable({ backend })
      const entry = Effect.map(h.sup.get(WEB), (r) => h.sup.entry(r, false))
      yield* startReady(h.sup, definition("web", { watch: ["bad/*.js"] }))
      yield* until(() => notes.includes(`${WEB}: watch: ${failed}`))
      expect((yield* entry).watch_problem).toBe(failed)
      // the file now watches a directory that can be watched
      failing.now = false
      yield* setDefinitions(definition("web", { watch: ["good/*.js"] }))
      const watching = `${WEB}: watch: watching good/*.js (native)`
      yield* until(() => notes.at(-1) === watching)
      expect(notes.at(-1)).toBe(watching)
      expect((yield* entry).watch_problem).toBeNull()
    }),
  )
})
