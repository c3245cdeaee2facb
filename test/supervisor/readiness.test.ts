import { spawn, spawnSync } from "node:child_process"
import * as http from "node:http"
import * as net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Either, Fiber, Option, Ref, Schedule, Stream, TestClock } from "effect"
import { makeNodeProcessService } from "../../src/process/NodeProcessService.js"
import type { ExitStatus } from "../../src/process/ProcessService.js"
import { probeCmd, type ReadyCommand } from "../../src/supervisor/readiness/cmd.js"
import { probeHttp } from "../../src/supervisor/readiness/http.js"
import {
  attemptTimeout,
  describeChecks,
  FOREIGN_PORT_GRACE,
  type PortAnswer,
  type ProbeAnswer,
  type ReadinessCheck,
  type ReadinessEnvironment,
  type ReadinessProbesShape,
  readinessChecks,
  renderChecks,
  waitUntilReady,
} from "../../src/supervisor/readiness/index.js"
import { probePort } from "../../src/supervisor/readiness/port.js"
import { ownPids } from "../../src/supervisor/readinessContext.js"
import { unfakedProbes } from "../../src/testing/fakes.js"
import { testTemplateScope } from "../../src/testing/templateScope.js"
import { recordingSignals } from "../process/helpers.js"
import {
  BASE_ENV,
  definition,
  expectSleep,
  expectSleepUntil,
  type Harness,
  makeHarness,
  spawnCount,
  startReady,
} from "./helpers.js"

const WEB = "app/web"

type Kind = "http" | "port" | "cmd"
interface ProbeCall {
  readonly kind: Kind
  readonly target: unknown
  readonly attemptTimeout: Duration.Duration
}

/**
 * Fake probes: each answers what the test set (not ready by default) and records its calls. A
 * port that is not ready answers `notReadyPort` (closed by default), after reading the daemon's pids.
 */
const makeProbes = Effect.gen(function* () {
  const ready = yield* Ref.make<Record<Kind, boolean>>({ http: false, port: false, cmd: false })
  const notReadyPort = yield* Ref.make<PortAnswer>({ _tag: "Closed" })
  const ownPids = yield* Ref.make<ReadonlyArray<number>>([])
  const calls = yield* Ref.make<ReadonlyArray<ProbeCall>>([])
  const probe = (kind: Kind, target: unknown, t: Duration.Duration) =>
    Ref.update(calls, (cs) => [...cs, { kind, target, attemptTimeout: t }]).pipe(
      Effect.zipRight(Ref.get(ready)),
      Effect.map((r) => r[kind]),
    )
  const probes: ReadinessProbesShape = {
    http: (url, accepted, t) => probe("http", { url, accepted }, t).pipe(Effect.map(answer)),
    port: (port, own, t) =>
      probe("port", port, t).pipe(
        Effect.zipLeft(Effect.flatMap(own, (pids) => Ref.set(ownPids, pids))),
        Effect.flatMap((ok) =>
          ok ? Effect.succeed<PortAnswer>({ _tag: "Listening" }) : Ref.get(notReadyPort),
        ),
      ),
    cmd: (cmd, t) => probe("cmd", cmd, t).pipe(Effect.map(answer)),
  }
  return {
    probes,
    setReady: (kind: Kind, value = true) => Ref.update(ready, (r) => ({ ...r, [kind]: value })),
    setPortAnswer: (answer: PortAnswer) => Ref.set(notReadyPort, answer),
    ownPids: Ref.get(ownPids),
    calls: (kind: Kind) => Ref.get(calls).pipe(Effect.map((cs) => cs.filter((c) => c.kind === kind))),
    count: (kind: Kind) => Ref.get(calls).pipe(Effect.map((cs) => cs.filter((c) => c.kind === kind).length)),
  }
})

/** A fake attempt's answer: whether it passed. */
const answer = (ok: boolean): ProbeAnswer => ({ ok, output: ok ? "" : "not yet" })

const notDone = <A, E>(f: Fiber.Fiber<A, E>) => Fiber.poll(f).pipe(Effect.map(Option.isNone))
const statusOf = (h: Harness, id: string) => h.sup.get(id).pipe(Effect.map((r) => r.status))
const URL_HEALTH = "http://127.0.0.1:3000/health"

describe("readiness: which checks count", () => {
  it("ready_delay (default 3 s) only when no other check is configured", () => {
    expect(readinessChecks({} as never)).toEqual([{ _tag: "delay", seconds: 3 }])
    expect(readinessChecks({ ready_delay: 0.5 } as never)).toEqual([{ _tag: "delay", seconds: 0.5 }])
    const checks = readinessChecks({
      ready_delay: 5,
      ready_http: { url: URL_HEALTH, status: [401] },
      ready_port: { port: 3000 },
    } as never)
    expect(checks.map((c) => c._tag)).toEqual(["http", "port"])
    expect(describeChecks(checks)).toBe(`${URL_HEALTH} or port 3000`)
  })

  it("templates render with the first expected port; a short name is in the daemon's namespace", () => {
    const scope = testTemplateScope({
      daemons: { "app/db": { ports: [5432] }, "other/cache": { ports: [6379] }, "app/noport": { ports: [] } },
    })
    const checks = readinessChecks({
      ready_http: { url: "http://127.0.0.1:{{ daemons.db.port }}/", status: [] },
      ready_port: { port: "{{daemons.other/cache.port}}" },
      ready_cmd: { run: "check {{ daemons.db.port }} {{ daemons.other/cache.port }}" },
      ready_output: { pattern: "port {{ daemons.db.port }}$" },
    } as never)
    const rendered = renderChecks(checks, scope)
    expect(Either.getOrThrow(rendered)).toEqual([
      { _tag: "output", pattern: "port 5432$", timeout: undefined },
      { _tag: "http", url: "http://127.0.0.1:5432/", status: [], timeout: undefined },
      // the port of other/cache: its listener counts, not the started daemon's
      { _tag: "port", port: 6379, timeout: undefined, owner: "other/cache" },
      { _tag: "cmd", run: "check 5432 6379", timeout: undefined },
    ])
    const unknown = renderChecks(
      readinessChecks({ ready_port: { port: "{{ daemons.nope.port }}" } } as never),
      scope,
    )
    expect(Either.getOrThrow(Either.flip(unknown))).toMatchObject({
      _tag: "TemplateError",
      key: "ready_port",
      template: "{{ daemons.nope.port }}",
      reason: "unknown_daemon",
      daemon: "app/nope",
      message:
        'ready_port "{{ daemons.nope.port }}": cannot render {{ daemons.nope.port }}: no daemon app/nope is known to the supervisor (start it first)',
    })
    const noPort = renderChecks(
      readinessChecks({ ready_http: { url: "http://x:{{ daemons.noport.port }}/", status: [] } } as never),
      scope,
    )
    expect(Either.getOrThrow(Either.flip(noPort))).toMatchObject({
      key: "ready_http",
      reason: "no_port",
      daemon: "app/noport",
      message:
        'ready_http "http://x:{{ daemons.noport.port }}/": cannot render {{ daemons.noport.port }}: daemon app/noport has no port (set `port` on it)',
    })
  })

  it("one attempt may take the polling interval, at least 5 s", () => {
    expect(Duration.toMillis(attemptTimeout(Duration.millis(500)))).toBe(5000)
    expect(Duration.toMillis(attemptTimeout(Duration.seconds(20)))).toBe(20_000)
  })
})

describe("readiness: the supervisor waits for the first check to pass", () => {
  it.scoped("ready_delay is ignored when another check is configured", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes })
      const starting = yield* expectSleep(
        500,
        Effect.fork(h.sup.start(definition("web", { ready_delay: 1, ready_http: URL_HEALTH }))),
      )
      yield* TestClock.adjust("10 seconds")
      expect(yield* notDone(starting)).toBe(true)
      expect(yield* statusOf(h, WEB)).toEqual({ type: "waiting" })
      // polled at once, then every ready_check_interval (default 500 ms)
      expect(yield* fp.count("http")).toBe(21)
      yield* fp.setReady("http")
      yield* TestClock.adjust("500 millis")
      const [proc] = yield* h.fake.processes
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Ready", id: WEB, pid: proc!.pid })
      expect(yield* statusOf(h, WEB)).toEqual({ type: "running" })
      expect(yield* h.persisted(WEB)).toEqual(["waiting", "running"])
    }),
  )

  it.scoped("ready_delay = 0 alone is ready at once", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      expect((yield* h.sup.start(definition("web", { ready_delay: 0 })))._tag).toBe("Ready")
    }),
  )

  it.scoped("the first check to pass wins and the others stop polling", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes })
      const starting = yield* expectSleep(
        500,
        Effect.fork(
          h.sup.start(
            definition("web", {
              ready_http: { url: URL_HEALTH, status: [401] },
              ready_port: 3000,
              ready_cmd: "test -e /tmp/ready",
            }),
          ),
        ),
      )
      yield* TestClock.adjust("1 second")
      expect(yield* notDone(starting)).toBe(true)
      expect([yield* fp.count("http"), yield* fp.count("port"), yield* fp.count("cmd")]).toEqual([3, 3, 3])
      yield* fp.setReady("port")
      yield* TestClock.adjust("500 millis")
      expect((yield* Fiber.join(starting))._tag).toBe("Ready")
      // The port's 4th attempt passed; the others' 4th attempts may or may not have run by then.
      const counts = [yield* fp.count("http"), yield* fp.count("port"), yield* fp.count("cmd")]
      expect(counts[1]).toBe(4)
      yield* TestClock.adjust("1 minute")
      expect([yield* fp.count("http"), yield* fp.count("port"), yield* fp.count("cmd")]).toEqual(counts)
      expect((yield* fp.calls("http"))[0]!.target).toEqual({ url: URL_HEALTH, accepted: [401] })
      expect((yield* fp.calls("port"))[0]!.target).toBe(3000)
    }),
  )

  it.scoped("polls every settings.supervisor.ready_check_interval", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({
        probes: fp.probes,
        settings: { supervisor: { ready_check_interval: "2s" } },
      })
      const starting = yield* expectSleep(
        2000,
        Effect.fork(h.sup.start(definition("web", { ready_port: 3000 }))),
      )
      expect(yield* fp.count("port")).toBe(1)
      yield* TestClock.adjust("1999 millis")
      expect(yield* fp.count("port")).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* fp.count("port")).toBe(2)
      expect(Duration.toMillis((yield* fp.calls("port"))[0]!.attemptTimeout)).toBe(5000)
      yield* fp.setReady("port")
      yield* TestClock.adjust("2 seconds")
      expect((yield* Fiber.join(starting))._tag).toBe("Ready")
    }),
  )

  it.scoped("a ready_http attempt waits settings.supervisor.http_client_timeout (default 5s)", () =>
    Effect.gen(function* () {
      for (const [settings, expected] of [
        [{}, 5000],
        [{ supervisor: { http_client_timeout: "750ms" } }, 750],
      ] as const) {
        const fp = yield* makeProbes
        const h = yield* makeHarness({ probes: fp.probes, settings })
        const starting = yield* Effect.fork(
          h.sup.start(definition("web", { ready_http: "http://127.0.0.1:9/" })),
        )
        yield* TestClock.adjust("1 millis")
        const [call] = yield* fp.calls("http")
        expect(Duration.toMillis(call!.attemptTimeout)).toBe(expected)
        yield* fp.setReady("http")
        yield* TestClock.adjust("1 second")
        expect((yield* Fiber.join(starting))._tag).toBe("Ready")
      }
    }),
  )

  it.scoped("ready_cmd runs in the daemon's dir, with its shell and environment", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes, settings: { general: { shell: "bash -c" } } })
      yield* fp.setReady("cmd")
      expect((yield* h.sup.start(definition("web", { ready_cmd: "curl -fs localhost:3000" })))._tag).toBe(
        "Ready",
      )
      const [call] = yield* fp.calls("cmd")
      expect(call!.target).toEqual({
        run: "curl -fs localhost:3000",
        shell: ["bash", "-c"],
        cwd: "/srv/web",
        env: {
          ...BASE_ENV,
          MODE: "test",
          SUPERVISOR_DAEMON_ID: WEB,
          SUPERVISOR_DAEMON_NAMESPACE: "app",
          SUPERVISOR_RETRY_COUNT: "0",
        },
      } satisfies ReadyCommand)
    }),
  )

  it.scoped("ready_output: a line printed right after the spawn counts, ANSI escapes stripped", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({
        afterSpawn: (_, emit) =>
          emit("booting").pipe(
            Effect.zipRight(emit("\u001b[32mlistening\u001b[39m on \u001b[1m:3000\u001b[22m")),
          ),
      })
      // No clock time passes: the line was there before the check started reading.
      const outcome = yield* h.sup.start(definition("web", { ready_output: "^listening on :\\d+$" }))
      expect(outcome._tag).toBe("Ready")
    }),
  )

  it.scoped("ready_output: a later line counts; lines of an earlier run do not", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* h.emit(WEB, "listening on :3000") // the previous run's output
      const starting = yield* expectSleep(
        5000,
        Effect.fork(
          h.sup.start(definition("web", { ready_output: { pattern: "listening", timeout: "5s" } })),
        ),
      )
      yield* TestClock.adjust("4 seconds")
      expect(yield* notDone(starting)).toBe(true)
      yield* h.emit(WEB, "still booting")
      yield* h.emit(WEB, "listening on :3000")
      expect((yield* Fiber.join(starting))._tag).toBe("Ready")
    }),
  )

  it.scoped("ready_output with a timeout: the old line does not count, so the start times out", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* h.emit(WEB, "listening on :3000")
      const starting = yield* expectSleep(
        5000,
        Effect.fork(
          h.sup.start(definition("web", { ready_output: { pattern: "listening", timeout: "5s" } })),
        ),
      )
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(starting)).toMatchObject({ _tag: "StartFailed", cli_status: 124 })
    }),
  )
})

describe("readiness: only the daemon's own process and listener count", () => {
  it.scoped(
    "ready_port held by another process: the start fails once it was seen so for the grace, naming the holder",
    () =>
      Effect.gen(function* () {
        const fp = yield* makeProbes
        const h = yield* makeHarness({ probes: fp.probes })
        yield* fp.setPortAnswer({ _tag: "Foreign", holder: { pid: 4242, name: "other-server" } })
        const starting = yield* expectSleep(
          500,
          Effect.fork(h.sup.start(definition("web", { ready_port: 3000 }))),
        )
        const [proc] = yield* h.fake.processes
        expect(yield* fp.ownPids).toEqual([proc!.pid])
        yield* TestClock.adjust(Duration.toMillis(FOREIGN_PORT_GRACE) - 500)
        expect(yield* notDone(starting)).toBe(true)
        yield* TestClock.adjust("500 millis")
        const message =
          "port 3000 is held by another process (pid 4242, other-server) not started by app/web; stop it or give app/web another port"
        expect(yield* Fiber.join(starting)).toMatchObject({
          _tag: "StartFailed",
          id: WEB,
          message,
          cli_status: 1,
        })
        expect(yield* statusOf(h, WEB)).toMatchObject({ type: "errored", message })
      }),
  )

  it.scoped(
    "ready_port held by another process for a moment only: the daemon's own listener still passes",
    () =>
      Effect.gen(function* () {
        const fp = yield* makeProbes
        const h = yield* makeHarness({ probes: fp.probes })
        yield* fp.setPortAnswer({ _tag: "Foreign", holder: undefined })
        const starting = yield* expectSleep(
          500,
          Effect.fork(h.sup.start(definition("web", { ready_port: 3000 }))),
        )
        yield* fp.setPortAnswer({ _tag: "Closed" })
        yield* TestClock.adjust("500 millis")
        yield* fp.setPortAnswer({ _tag: "Foreign", holder: undefined })
        yield* TestClock.adjust("500 millis")
        expect(yield* notDone(starting)).toBe(true) // seen foreign at 0 and 1 s, not all along
        yield* fp.setReady("port")
        yield* TestClock.adjust("500 millis")
        expect((yield* Fiber.join(starting))._tag).toBe("Ready")
      }),
  )

  it.scoped("ready_port naming another daemon's port waits for that daemon's listener", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes })
      const dbPid = yield* startReady(h.sup, definition("db", { port: { expect: [5432], bump: false } }))
      yield* fp.setReady("port")
      const outcome = yield* h.sup.start(definition("api", { ready_port: "{{ daemons.db.port }}" }))
      expect(outcome._tag).toBe("Ready")
      expect((yield* fp.calls("port"))[0]!.target).toBe(5432)
      expect(yield* fp.ownPids).toEqual([dbPid])
    }),
  )

  it.scoped("a check that passes once the daemon's process has died is not ready: its exit says why", () =>
    Effect.gen(function* () {
      for (const alive of [false, true]) {
        const probed = yield* Deferred.make<void>()
        const exit = yield* Deferred.make<ExitStatus>()
        const env: ReadinessEnvironment = {
          probes: {
            ...unfakedProbes,
            http: () => Deferred.succeed(probed, undefined).pipe(Effect.as(answer(true))),
          },
          interval: Duration.millis(500),
          lines: Stream.empty,
          command: { shell: ["sh", "-c"], cwd: "/", env: {} },
          treeOf: () => Effect.succeed([]),
          alive: Effect.succeed(alive),
        }
        const check: ReadinessCheck = { _tag: "http", url: URL_HEALTH, status: [], timeout: undefined }
        const waiting = yield* Effect.fork(waitUntilReady(WEB, [check], env, Deferred.await(exit)))
        yield* Deferred.await(probed)
        if (alive) {
          expect(yield* Fiber.join(waiting)).toEqual({ _tag: "Ready", check })
          continue
        }
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
        expect(yield* notDone(waiting)).toBe(true)
        const status: ExitStatus = { code: 1, signal: null, known: true }
        yield* Deferred.succeed(exit, status)
        expect(yield* Fiber.join(waiting)).toEqual({ _tag: "Exited", status })
      }
    }),
  )
})

describe("readiness: timeouts", () => {
  it.scoped(
    "a check that times out stops counting; once every check has, the daemon is stopped and the start fails with 124",
    () =>
      Effect.gen(function* () {
        const fp = yield* makeProbes
        const h = yield* makeHarness({ probes: fp.probes, output: { [WEB]: ["booting", "still booting"] } })
        const def = definition("web", {
          retry: 2,
          ready_http: { url: URL_HEALTH, timeout: "2s" },
          ready_port: { port: 3000, timeout: "5s" },
        })
        const starting = yield* expectSleep(500, Effect.fork(h.sup.start(def)))
        const [proc] = yield* h.fake.processes
        yield* TestClock.adjust("2 seconds")
        const httpCalls = yield* fp.count("http")
        const portCalls = yield* fp.count("port")
        yield* TestClock.adjust("2 seconds")
        expect(yield* notDone(starting)).toBe(true)
        expect(yield* fp.count("http")).toBe(httpCalls) // timed out: no longer polled
        expect(yield* fp.count("port")).toBe(portCalls + 4)
        expect(yield* statusOf(h, WEB)).toEqual({ type: "waiting" })
        yield* TestClock.adjust("999 millis")
        expect(yield* notDone(starting)).toBe(true)
        yield* TestClock.adjust("1 millis")
        const message = `app/web was not ready in time: ready_http (${URL_HEALTH}) timed out after 2s, ready_port (port 3000) timed out after 5s`
        expect(yield* Fiber.join(starting)).toEqual({
          _tag: "StartFailed",
          id: WEB,
          message,
          exit_code: null,
          signal: "SIGTERM",
          output: ["booting", "still booting"],
          cli_status: 124,
        })
        expect(yield* Ref.get(h.fake.signals)).toEqual([{ pgid: proc!.pid, signal: "SIGTERM" }])
        expect(yield* h.fake.running).toEqual([])
        const r = yield* h.sup.get(WEB)
        expect(r.status).toEqual({ type: "errored", exit_code: null, signal: "SIGTERM", message })
        expect(r.pid).toBeNull()
        expect(yield* h.persisted(WEB)).toEqual(["waiting", "stopping", "errored"])
        // A readiness timeout is not retried.
        yield* TestClock.adjust("10 minutes")
        expect(yield* spawnCount(h)).toBe(1)
      }),
  )

  it.scoped("a check without a timeout keeps the start waiting after the others timed out", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes })
      const starting = yield* expectSleep(
        500,
        Effect.fork(
          h.sup.start(
            definition("web", { ready_http: { url: URL_HEALTH, timeout: "1s" }, ready_cmd: "test -e ready" }),
          ),
        ),
      )
      yield* TestClock.adjust("1 minute")
      expect(yield* notDone(starting)).toBe(true)
      yield* fp.setReady("http") // too late: it timed out
      yield* TestClock.adjust("1 second")
      expect(yield* notDone(starting)).toBe(true)
      yield* fp.setReady("cmd")
      yield* TestClock.adjust("500 millis")
      expect((yield* Fiber.join(starting))._tag).toBe("Ready")
    }),
  )

  it.scoped("the stop after a timeout escalates to SIGKILL like any stop", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* h.fake.ignoreNext("SIGTERM")
      const starting = yield* expectSleep(
        1000,
        Effect.fork(h.sup.start(definition("web", { ready_output: { pattern: "ready", timeout: "1s" } }))),
      )
      const [proc] = yield* h.fake.processes
      yield* expectSleepUntil(6000, TestClock.adjust("1 second")) // the stop timeout (5 s) runs
      expect(yield* statusOf(h, WEB)).toEqual({ type: "stopping" })
      expect(yield* notDone(starting)).toBe(true)
      yield* TestClock.adjust("5 seconds")
      expect(yield* Fiber.join(starting)).toMatchObject({
        _tag: "StartFailed",
        signal: "SIGKILL",
        cli_status: 124,
        message: "app/web was not ready in time: ready_output (output matching /ready/) timed out after 1s",
      })
      expect(yield* Ref.get(h.fake.signals)).toEqual([
        { pgid: proc!.pid, signal: "SIGTERM" },
        { pgid: proc!.pid, signal: "SIGKILL" },
      ])
    }),
  )
})

describe("readiness: exits before ready", () => {
  it.scoped("exit 0 before any check passed: Completed (a one-shot task)", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes })
      const starting = yield* expectSleep(
        500,
        Effect.fork(
          h.sup.start(definition("task", { retry: 2, ready_http: { url: URL_HEALTH, timeout: "5s" } })),
        ),
      )
      const [proc] = yield* h.fake.processes
      yield* h.fake.exit(proc!.pid, { code: 0 })
      expect(yield* Fiber.join(starting)).toEqual({ _tag: "Completed", id: "app/task" })
      expect(yield* statusOf(h, "app/task")).toEqual({ type: "stopped", exit_code: 0, signal: null })
      yield* TestClock.adjust("1 minute")
      expect(yield* spawnCount(h)).toBe(1)
    }),
  )

  it.scoped("a non-zero exit before any check passed: StartFailed with the exit code (status 1)", () =>
    Effect.gen(function* () {
      const fp = yield* makeProbes
      const h = yield* makeHarness({ probes: fp.probes, output: { [WEB]: ["Error: EADDRINUSE"] } })
      const starting = yield* expectSleep(
        500,
        Effect.fork(h.sup.start(definition("web", { ready_port: 3000 }))),
      )
      const [proc] = yield* h.fake.processes
      yield* h.fake.exit(proc!.pid, { code: 3 })
      expect(yield* Fiber.join(starting)).toEqual({
        _tag: "StartFailed",
        id: WEB,
        message: "app/web exited with code 3",
        exit_code: 3,
        signal: null,
        output: ["Error: EADDRINUSE"],
        cli_status: 1,
      })
    }),
  )
})

describe("readiness: templates", () => {
  it.scoped(
    "{{ daemons.<name>.port }} renders the first expected port of a daemon the supervisor knows",
    () =>
      Effect.gen(function* () {
        const fp = yield* makeProbes
        const h = yield* makeHarness({ probes: fp.probes })
        yield* startReady(h.sup, definition("db", { port: [5432, 5433], ready_delay: 0.1 }))
        yield* fp.setReady("cmd")
        const outcome = yield* h.sup.start(
          definition("web", {
            port: 3000,
            ready_http: "http://127.0.0.1:{{ daemons.web.port }}/health",
            ready_port: "{{ daemons.app/db.port }}",
            ready_cmd: "pg_isready -p {{ daemons.db.port }}",
          }),
        )
        expect(outcome._tag).toBe("Ready")
        expect((yield* fp.calls("http"))[0]!.target).toEqual({
          url: "http://127.0.0.1:3000/health",
          accepted: [],
        })
        expect((yield* fp.calls("port"))[0]!.target).toBe(5432)
        expect(((yield* fp.calls("cmd"))[0]!.target as ReadyCommand).run).toBe("pg_isready -p 5432")
      }),
  )

  it.scoped(
    "a template naming an unknown daemon, or one without a port, fails the start before spawning",
    () =>
      Effect.gen(function* () {
        const fp = yield* makeProbes
        const h = yield* makeHarness({ probes: fp.probes })
        const unknown = yield* h.sup.start(definition("web", { ready_port: "{{ daemons.db.port }}" }))
        const message =
          'cannot start daemon app/web: ready_port "{{ daemons.db.port }}": cannot render {{ daemons.db.port }}: no daemon app/db is known to the supervisor (start it first)'
        expect(unknown).toEqual({
          _tag: "StartFailed",
          id: WEB,
          message,
          exit_code: null,
          signal: null,
          output: [],
          cli_status: 1,
        })
        expect(yield* statusOf(h, WEB)).toEqual({ type: "failed", message })
        expect(yield* spawnCount(h)).toBe(0)

        yield* startReady(h.sup, definition("db", { ready_delay: 0.1 }))
        const noPort = yield* h.sup.start(
          definition("web", { ready_cmd: "nc -z localhost {{ daemons.db.port }}" }),
        )
        expect(noPort).toMatchObject({
          _tag: "StartFailed",
          message:
            'cannot start daemon app/web: ready_cmd "nc -z localhost {{ daemons.db.port }}": cannot render {{ daemons.db.port }}: daemon app/db has no port (set `port` on it)',
          cli_status: 1,
        })
        expect(yield* spawnCount(h)).toBe(1) // only db
      }),
  )
})

describe("readiness: the real probes", () => {
  const listen = (server: http.Server | net.Server) =>
    Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () =>
          resume(Effect.succeed((server.address() as net.AddressInfo).port)),
        )
      }),
      () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void))),
    )
  const second = Duration.seconds(2)

  it.scopedLive(
    "ready_http: 2xx is ready, a listed status too, others and refused connections are not",
    () =>
      Effect.gen(function* () {
        const server = http.createServer((req, res) => {
          res.writeHead(req.url === "/ok" ? 204 : req.url === "/auth" ? 401 : 503, { connection: "close" })
          res.end()
        })
        const port = yield* listen(server)
        const base = `http://127.0.0.1:${port}`
        expect(yield* probeHttp(`${base}/ok`, [], second)).toBe(true)
        expect(yield* probeHttp(`${base}/auth`, [], second)).toBe(false)
        expect(yield* probeHttp(`${base}/auth`, [401], second)).toBe(true)
        expect(yield* probeHttp(`${base}/down`, [401], second)).toBe(false)
        expect(yield* probeHttp("http://127.0.0.1:1/", [], second)).toBe(false)
        expect(yield* probeHttp("not a url", [], second)).toBe(false)
      }),
    10_000,
  )

  it.scopedLive(
    "ready_http: an attempt that gets no answer is abandoned after its timeout",
    () =>
      Effect.gen(function* () {
        const server = http.createServer(() => {}) // never answers
        const port = yield* listen(server)
        // an attempt that waited for an answer would never end (the test's own timeout fails it)
        expect(yield* probeHttp(`http://127.0.0.1:${port}/`, [], Duration.millis(200))).toBe(false)
        server.closeAllConnections()
      }),
    10_000,
  )

  it.scopedLive(
    "ready_port: ready only when the daemon's tree holds the listener; another process's is named",
    () =>
      Effect.gen(function* () {
        const port = yield* listen(net.createServer((s) => s.destroy()))
        // this test's process holds the listener: ready for a tree that contains it ...
        expect(yield* probePort(port, Effect.succeed([process.pid]), second)).toEqual({ _tag: "Listening" })
        // ... and held by another process for any other tree (here: none)
        const foreign = yield* probePort(port, Effect.succeed([]), second)
        expect(foreign).toMatchObject({ _tag: "Foreign", holder: { pid: process.pid } })
        const closed = yield* Effect.scoped(listen(net.createServer()))
        expect(yield* probePort(closed, Effect.succeed([process.pid]), second)).toEqual({ _tag: "Closed" })
      }),
    10_000,
  )

  it.scopedLive(
    "the daemon's tree: its process, its descendants and its group",
    () =>
      Effect.gen(function* () {
        const processes = makeNodeProcessService()
        const child = spawn("sh", ["-c", "sleep 30 & sleep 31; :"], { detached: true, stdio: "ignore" })
        yield* Effect.addFinalizer(() => Effect.sync(() => process.kill(-child.pid!, "SIGKILL")))
        // the shell and its two sleeps, once the shell has forked them (bounded)
        let pids: ReadonlyArray<number> = []
        for (let i = 0; i < 250 && pids.length < 3; i++) {
          pids = yield* ownPids(processes, child.pid!)
          if (pids.length < 3) yield* Effect.sleep("20 millis")
        }
        expect(pids).toContain(child.pid)
        expect(pids).toHaveLength(3)
      }),
    10_000,
  )

  const command = (run: string): ReadyCommand => ({
    run,
    shell: ["sh", "-c"],
    cwd: "/tmp",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", WANT: "yes" },
  })

  it.scopedLive(
    "ready_cmd: exit 0 is ready; it sees the given dir and env; a hanging attempt is killed",
    () =>
      Effect.gen(function* () {
        const signals = recordingSignals()
        expect(
          yield* probeCmd(signals.service)(command('test "$WANT" = yes && test "$(pwd)" = /tmp'), second),
        ).toBe(true)
        expect(yield* probeCmd(signals.service)(command("exit 1"), second)).toBe(false)
        expect(
          yield* probeCmd(signals.service)({ ...command("true"), cwd: "/nonexistent/dir" }, second),
        ).toBe(false)
        const sleeper = `sleep 30.${process.pid}${Date.now() % 100_000}`
        expect(yield* probeCmd(signals.service)(command(`${sleeper}; true`), Duration.millis(200))).toBe(
          false,
        )
        expect(signals.sent.map((s) => s.signal)).toEqual(["SIGKILL"])
        // the whole group (the shell and its sleep) was SIGKILLed: wait until none is left
        const left = Effect.sync(
          () => spawnSync("pgrep", ["-f", sleeper], { encoding: "utf8" }).stdout.trim() !== "",
        )
        const gone = yield* left.pipe(
          Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (any) => !any }),
          Effect.timeoutTo({ duration: "3 seconds", onTimeout: () => false, onSuccess: () => true }),
        )
        expect(gone).toBe(true)
      }),
    10_000,
  )
})
