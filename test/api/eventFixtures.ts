// What the event stream's tests share: an event body and a host whose shutdown they can trigger.
import { Deferred, Effect, Ref } from "effect"
import type { HostInfoShape, ListenerUrls, ShutdownMode } from "../../src/domain/HostInfo.js"
import type { EventBody } from "../../src/domain/SupervisorEvent.js"
import { makeSessions } from "../../src/host/sessions.js"

/** `id` became running. */
export const changed = (id: string): EventBody => ({
  _tag: "DaemonStateChanged",
  id,
  from: "waiting",
  to: "running",
  reason: "ready",
  pid: 42,
  exit_code: null,
  signal: null,
  message: null,
})

/** A host with no listeners, its shutdown not yet asked for. */
export const makeHost = Effect.gen(function* () {
  const host: HostInfoShape = {
    version: "0.0.0",
    startedAt: 0,
    stateDir: "/nonexistent",
    socket: "/nonexistent/api.sock",
    listeners: yield* Ref.make<ListenerUrls>({ web: null, api: null }),
    sessions: makeSessions(),
    shutdown: yield* Deferred.make<ShutdownMode>(),
  }
  return host
})
