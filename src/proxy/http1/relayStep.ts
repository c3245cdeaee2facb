import { close, concat, destroy, pump, routed, type Work, waiting } from "./relayRequests.js"
import { daemonClosed, daemonIdle, follow } from "./relayResponses.js"
import type { Closed, RelayAction, RelayEvent, Relaying, RelayState, Tunnel } from "./relayState.js"

const NONE: ReadonlyArray<RelayAction> = []
const DESTROY: ReadonlyArray<RelayAction> = [{ _tag: "DestroyClient" }]

/**
 * The relay's transition function: the state after `event`, and what to do on the sockets. It
 * does no I/O and leaves `state` as it was; the framing is that of docs/proxy.md.
 */
export const step = (
  state: RelayState,
  event: RelayEvent,
): readonly [RelayState, ReadonlyArray<RelayAction>] => {
  switch (state._tag) {
    case "Relaying":
      return relaying(state, event)
    case "Tunnel":
      return tunnel(state, event)
    case "HandedOff":
      return [state, NONE]
    case "Closed":
      return closed(state, event)
  }
}

const relaying = (state: Relaying, event: RelayEvent): readonly [RelayState, ReadonlyArray<RelayAction>] => {
  const w: Work = { s: { ...state }, out: [], end: undefined, ownRequest: false, ownResponse: false }
  const s = w.s
  const current = (id: number) => s.daemon?.open === true && s.daemon.id === id
  switch (event._tag) {
    case "ClientData":
      s.input = concat(s.input, event.chunk)
      if (!waiting(s.request)) pump(w)
      else if (!s.clientPaused) {
        // reading waits with the relay: at most this read is held
        s.clientPaused = true
        w.out.push({ _tag: "PauseClient" })
      }
      break
    case "ClientEnd":
      s.clientEnded = true
      if (s.pending.length === 0 && !waiting(s.request)) close(w)
      break
    case "ClientClose":
      destroy(w)
      break
    case "ClientIdle":
      // a request held for its routing (a daemon started on request) is not idle
      if (s.pending.length === 0 && s.request._tag === "Head") close(w)
      break
    case "ClientFull":
      s.clientFull = true
      w.out.push({ _tag: "PauseDaemon" })
      break
    case "ClientDrain":
      if (!s.clientFull) break
      s.clientFull = false
      w.out.push({ _tag: "ResumeDaemon" })
      break
    case "Routed":
      routed(w, event.routing)
      break
    case "DaemonData":
      if (current(event.id)) follow(w, event.chunk)
      break
    case "DaemonError":
      if (s.daemon?.id === event.id) s.daemon = { ...s.daemon, error: event.error }
      break
    case "DaemonClose":
      if (current(event.id)) daemonClosed(w)
      break
    case "DaemonIdle":
      if (current(event.id)) daemonIdle(w)
      break
    case "DaemonFull":
      if (current(event.id)) s.daemonFull = true
      break
    case "DaemonDrain":
      if (current(event.id)) s.daemonFull = false
      break
  }
  if (w.end !== undefined) return [w.end, w.out]
  // the client is read only while the daemon takes its bytes and the relay does not wait
  if (s.daemonFull && !s.clientPaused) {
    s.clientPaused = true
    w.out.push({ _tag: "PauseClient" })
  } else if (s.clientPaused && !s.daemonFull && !waiting(s.request)) {
    s.clientPaused = false
    w.out.push({ _tag: "ResumeClient" })
  }
  return [s, w.out]
}

const CLOSED: Closed = { _tag: "Closed" }

/** Bytes both ways as they are, each side read only while the other takes them. */
const tunnel = (state: Tunnel, event: RelayEvent): readonly [RelayState, ReadonlyArray<RelayAction>] => {
  const mine = "id" in event && event.id === state.daemon
  switch (event._tag) {
    case "ClientData":
      return [state, [{ _tag: "ToDaemon", data: event.chunk }]]
    case "DaemonData":
      return mine ? [state, [{ _tag: "ToClient", data: event.chunk }]] : [state, NONE]
    case "ClientEnd":
      return [state, [{ _tag: "EndDaemon", id: state.daemon }]]
    case "DaemonClose":
      return mine ? [CLOSED, [{ _tag: "EndClient", page: undefined }]] : [state, NONE]
    case "ClientClose":
      return [CLOSED, [{ _tag: "DestroyClient" }, { _tag: "DropDaemon", id: state.daemon }]]
    case "ClientFull":
      return [{ ...state, clientFull: true }, [{ _tag: "PauseDaemon" }]]
    case "ClientDrain":
      return state.clientFull ? [{ ...state, clientFull: false }, [{ _tag: "ResumeDaemon" }]] : [state, NONE]
    case "DaemonFull":
      return mine && !state.clientPaused
        ? [{ ...state, daemonFull: true, clientPaused: true }, [{ _tag: "PauseClient" }]]
        : [state, NONE]
    case "DaemonDrain":
      return mine && state.clientPaused
        ? [{ ...state, daemonFull: false, clientPaused: false }, [{ _tag: "ResumeClient" }]]
        : [state, NONE]
    default:
      return [state, NONE]
  }
}

/** What the client still does once nothing is relayed: its socket goes. */
const closed = (state: Closed, event: RelayEvent): readonly [RelayState, ReadonlyArray<RelayAction>] =>
  event._tag === "ClientEnd" || event._tag === "ClientClose" ? [state, DESTROY] : [state, NONE]
