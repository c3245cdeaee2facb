import * as net from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Option } from "effect"
import { portEnvironment } from "../../src/domain/portEnvironment.js"
import { isPortFree, livePortAvailability, type PortCheck } from "../../src/supervisor/ports/availability.js"
import {
  type ConflictFacts,
  conflictMessage,
  type PortConflict,
  resolvePorts,
} from "../../src/supervisor/ports/resolve.js"

/** A real listener on `host` (the kernel picks the port by default), closed with the test's scope. */
const listener = (host: string, port = 0) =>
  Effect.acquireRelease(
    Effect.async<{ server: net.Server; port: number }>((resume) => {
      const server = net.createServer()
      server.listen({ host, port }, () => {
        const address = server.address()
        resume(Effect.succeed({ server, port: typeof address === "object" && address ? address.port : 0 }))
      })
    }),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void))),
  ).pipe(Effect.map(({ port }) => port))

/** A port that was free a moment ago: bind port 0 and release it. */
const freshPort = Effect.scoped(listener("127.0.0.1"))

describe("isPortFree", () => {
  it.scopedLive.each(["127.0.0.1", "::", "::1"])("sees a listener on %s as in use", (host) =>
    Effect.gen(function* () {
      const port = yield* listener(host)
      expect(yield* isPortFree(port)).toEqual({ free: false, reason: "in-use" })
    }),
  )

  it.live("a free port is free, and is released again after the check", () =>
    Effect.gen(function* () {
      const port = yield* freshPort
      expect(yield* isPortFree(port)).toEqual({ free: true })
      expect(yield* isPortFree(port)).toEqual({ free: true })
      // a real server can take it right after: the check left nothing bound
      expect(yield* Effect.scoped(listener("::", port))).toBe(port)
    }),
  )

  it.live("interrupting checks leaks nothing", () =>
    Effect.gen(function* () {
      const port = yield* freshPort
      for (let i = 0; i < 20; i++) {
        // interrupted while the bind is in flight: the canceler must close the server
        const fiber = yield* Effect.fork(isPortFree(port))
        yield* Effect.yieldNow()
        yield* Fiber.interrupt(fiber)
      }
      expect(yield* isPortFree(port)).toEqual({ free: true })
      expect(yield* Effect.scoped(listener("::", port))).toBe(port)
    }),
  )

  it.scopedLive("the live holder lookup names this process", () =>
    Effect.gen(function* () {
      const port = yield* listener("127.0.0.1")
      const holder = yield* livePortAvailability.holder(port)
      expect(Option.map(holder, (h) => h.pid)).toEqual(Option.some(process.pid))
    }),
  )
})

/** A fake check: the ports in `busy` are in use, the rest free; records every port asked about. */
const fakeCheck = (busy: Iterable<number>, reason = "in-use") => {
  const taken = new Set(busy)
  const asked: Array<number> = []
  const check = (port: number): Effect.Effect<PortCheck> =>
    Effect.sync(() => {
      asked.push(port)
      return taken.has(port) ? { free: false, reason } : { free: true }
    })
  return { check, asked }
}

const resolveEither = (expect: ReadonlyArray<number>, bump: boolean | number, busy: Iterable<number>) =>
  resolvePorts(expect, bump, fakeCheck(busy).check).pipe(Effect.either)

const conflictOf = (result: Either.Either<unknown, PortConflict>): PortConflict => {
  if (Either.isRight(result)) throw new Error("expected a conflict")
  return result.left
}

describe("resolvePorts", () => {
  it.effect("takes the declared ports when they are free, checking each once", () =>
    Effect.gen(function* () {
      const { check, asked } = fakeCheck([])
      expect(yield* resolvePorts([3000, 3001], false, check)).toEqual({ ports: [3000, 3001], offset: 0 })
      expect(asked).toEqual([3000, 3001])
    }),
  )

  it.effect("no ports: nothing to check", () =>
    Effect.gen(function* () {
      expect(yield* resolvePorts([], true, fakeCheck([]).check)).toEqual({ ports: [], offset: 0 })
    }),
  )

  it.effect("without bump a busy port is a conflict naming it", () =>
    Effect.gen(function* () {
      const conflict = conflictOf(yield* resolveEither([3000, 3001], false, [3001]))
      expect(conflict._tag).toBe("PortConflict")
      expect(conflict).toMatchObject({ port: 3001, reason: "in-use", attempts: 1, bump: false })
      expect(conflict.message).toMatch(/^port 3001 is already in use; .*port\.bump = true/)
    }),
  )

  it.effect("bump 0 is off", () =>
    Effect.gen(function* () {
      const conflict = conflictOf(yield* resolveEither([3000], 0, [3000]))
      expect(conflict).toMatchObject({ port: 3000, attempts: 1, bump: 0 })
    }),
  )

  it.effect("bump N shifts every port by the same offset, keeping the spacing", () =>
    Effect.gen(function* () {
      // every offset up to 4 has one shifted port on a busy one: offset 5 is the first clear one
      const { check, asked } = fakeCheck([3000, 3002, 3004])
      expect(yield* resolvePorts([3000, 3001], 10, check)).toEqual({ ports: [3005, 3006], offset: 5 })
      // each offset stops at its first taken port
      expect(asked).toEqual([3000, 3001, 3002, 3002, 3003, 3004, 3004, 3005, 3006])
    }),
  )

  it.effect("bump N exhausted: N + 1 attempts, the conflict names the declared busy port", () =>
    Effect.gen(function* () {
      const busy = Array.from({ length: 20 }, (_, i) => 3000 + i)
      const conflict = conflictOf(yield* resolveEither([3000, 3001], 3, busy))
      expect(conflict).toMatchObject({
        port: 3000,
        reason: "in-use",
        attempts: 4,
        bump: 3,
        ports: [3000, 3001],
      })
      expect(conflict.message).toMatch(
        /^ports 3000 and 3001 and the next 3 offsets are all in use \(port 3000\)/,
      )
    }),
  )

  it.effect("bump true keeps going", () =>
    Effect.gen(function* () {
      const busy = Array.from({ length: 500 }, (_, i) => 3000 + 2 * i)
      expect(yield* resolvePorts([3000, 3001], true, fakeCheck(busy).check)).toEqual({
        ports: [3999, 4000],
        offset: 999,
      })
    }),
  )

  it.effect("no offset may push a port above 65535", () =>
    Effect.gen(function* () {
      const { check, asked } = fakeCheck([65533, 65534, 65535])
      const conflict = conflictOf(yield* resolvePorts([65530, 65533], true, check).pipe(Effect.either))
      // offsets 0, 1 and 2 fit (65533 + 2 = 65535); offset 3 would need 65536
      expect(conflict).toMatchObject({ port: 65533, attempts: 3 })
      expect(Math.max(...asked)).toBe(65535)
      expect(conflict.message).toContain("every offset up to port 65535")
    }),
  )

  it.effect("a declared 65535 cannot be bumped at all", () =>
    Effect.gen(function* () {
      const conflict = conflictOf(yield* resolveEither([65535], 10, [65535]))
      expect(conflict.attempts).toBe(1)
      expect(conflict.message).toContain("cannot shift ports above 65535")
    }),
  )

  it.effect("permission is not bumped past", () =>
    Effect.gen(function* () {
      const { check, asked } = fakeCheck([80], "permission")
      const conflict = conflictOf(yield* resolvePorts([80], true, check).pipe(Effect.either))
      expect(conflict).toMatchObject({ port: 80, reason: "permission", attempts: 1 })
      expect(asked).toEqual([80])
      expect(conflict.message).toBe(
        "port 80 cannot be bound: permission denied (ports below 1024 need root); choose a port of 1024 or above, or run the supervisor as root",
      )
    }),
  )

  it.effect("names the holder when a lookup is given", () =>
    Effect.gen(function* () {
      const conflict = conflictOf(
        yield* resolvePorts([3000], false, fakeCheck([3000]).check, (port) =>
          Effect.succeed(port === 3000 ? Option.some({ pid: 1234, name: "node" }) : Option.none()),
        ).pipe(Effect.either),
      )
      expect(conflict.holder).toEqual({ pid: 1234, name: "node" })
      expect(conflict.message).toContain("in use by node (pid 1234)")
    }),
  )
})

describe("conflictMessage", () => {
  const base: ConflictFacts = { ports: [3000], port: 3000, reason: "in-use", attempts: 1, bump: false }
  const node = { pid: 1234, name: "node" }

  it("names the port, the holder and the fix", () =>
    expect(conflictMessage(base, node)).toBe(
      "port 3000 is already in use by node (pid 1234); stop that process, choose another port, or set port.bump = true to shift the ports",
    ))
  it("without a holder", () =>
    expect(conflictMessage(base)).toBe(
      "port 3000 is already in use; stop the process using it, choose another port, or set port.bump = true to shift the ports",
    ))
  it("bump exhausted", () =>
    expect(conflictMessage({ ...base, ports: [3000, 3001], attempts: 11, bump: 10 }, node)).toBe(
      "ports 3000 and 3001 and the next 10 offsets are all in use (port 3000 by node (pid 1234)); stop that process, choose other ports, or raise port.bump",
    ))
  it("lists three ports with commas", () =>
    expect(conflictMessage({ ...base, ports: [3000, 3001, 3002], attempts: 3, bump: 2 })).toMatch(
      /^ports 3000, 3001 and 3002 and the next 2 offsets are all in use \(port 3000\); stop the process using it/,
    ))
  it("a holder stored on the conflict is used", () =>
    expect(conflictMessage({ ...base, holder: node })).toContain("by node (pid 1234)"))
  it("permission above 1024", () =>
    expect(conflictMessage({ ...base, reason: "permission" })).toBe(
      "port 3000 cannot be bound: permission denied; choose another port",
    ))
  it("another error code", () =>
    expect(conflictMessage({ ...base, reason: "EADDRNOTAVAIL" })).toBe(
      "port 3000 cannot be bound (EADDRNOTAVAIL); choose another port",
    ))
})

describe("portEnvironment", () => {
  it("none", () => expect(portEnvironment([])).toEqual({}))
  it("one port: PORT only", () => expect(portEnvironment([3000])).toEqual({ PORT: "3000" }))
  it("several: PORT and PORT0..", () =>
    expect(portEnvironment([3010, 3011, 3012])).toEqual({
      PORT: "3010",
      PORT0: "3010",
      PORT1: "3011",
      PORT2: "3012",
    }))
})
