/**
 * `settings.web.port_attempts` and `settings.api.port_attempts` (pitchfork's): how many ports a
 * listener tries when its port is busy. Real sockets: a taken port is skipped within the attempts,
 * and refused, in words, past them.
 */
import { createServer, type Server } from "node:net"
import { Effect, Either, Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { Settings } from "../../src/domain/Settings.js"
import { listenerPlans } from "../../src/host/listeners.js"
import { listen } from "../../src/host/tcp.js"

const settings = (raw: Record<string, unknown> = {}) => Schema.decodeUnknownSync(Settings)(raw)
const held: Array<Server> = []
afterEach(async () => {
  for (const s of held.splice(0)) await new Promise((r) => s.close(r))
})

/** A port held by this test, whose next one was free a moment ago. */
const busyPort = async (): Promise<number> => {
  for (;;) {
    const s = createServer()
    const port = await new Promise<number>((ok) =>
      s.listen(0, "127.0.0.1", () => ok((s.address() as { port: number }).port)),
    )
    const next = createServer()
    const free = await new Promise<boolean>((ok) => {
      next.once("error", () => ok(false))
      next.listen(port + 1, "127.0.0.1", () => next.close(() => ok(true)))
    })
    if (free) {
      held.push(s)
      return port
    }
    await new Promise((r) => s.close(r))
  }
}

const bind = (port: number, attempts: number) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.either(listen((_req, res) => res.end(), "127.0.0.1", port, undefined, undefined, attempts)),
    ),
  )

describe("port_attempts", () => {
  it("defaults to 10 for both listeners, and is a whole number from 1 to 100", () => {
    expect(settings().web.port_attempts).toBe(10)
    expect(settings().api.port_attempts).toBe(10)
    expect(settings({ web: { port_attempts: 1 } }).web.port_attempts).toBe(1)
    for (const bad of [0, 101, 2.5, "ten"])
      expect(
        Either.isLeft(Schema.decodeUnknownEither(Settings)({ api: { port_attempts: bad } })),
        String(bad),
      ).toBe(true)
  })

  it("reaches each listener's plan", () => {
    const plans = Effect.runSync(
      listenerPlans(settings({ web: { port_attempts: 3 }, api: { port_attempts: 1, auto_start: true } }), {
        SUPERVISOR_WEB_PORT: "0",
      }),
    )
    expect(plans.map((p) => [p.kind, p.portAttempts])).toEqual([
      ["web", 3],
      ["api", 1],
    ])
  })

  it("a busy port: the next one within the attempts; refused, in words, with 1", async () => {
    const port = await busyPort()
    const moved = await bind(port, 2)
    expect(Either.isRight(moved) && moved.right.port).toBe(port + 1)
    const refused = await bind(port, 1)
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      `port ${port} on 127.0.0.1 is in use; choose another port (0 picks a free one), or let the listener try the next ones (port_attempts)`,
    )
  })
})
