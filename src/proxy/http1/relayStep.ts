import { close, concat, destroy, pump, routed, type Work, waiting } from "./relayRequests.js"
import { daemonClosed, daemonIdle, follow } from "./relayResponses.js"
import type { Closed, RelayAction, RelayEvent, Relaying, RelayState, Tunnel } from "./relayState.js"

/**
 * The relay's transition function: the state after `event`, and what to do on the sockets. It
 * does no I/O and leaves `state` as it was; the framing is that of docs/proxy.md.
 */
export const step = (
  state: RelayState,
  event: RelayEvent,
): readonly [RelayState, ReadonlyArray<RelayAction>] => {
  const out: RelayAction[] = []
  return [advance(state, event, out, false), out]
}

/**
 * `step` for a caller that keeps neither the actions nor the state it passes (the socket
 * adapter): the actions go to `out`, and with `reuse` the state is changed in place and
 * returned instead of copied, which spares the hot path a copy per event.
 */
export const advance = (
  state: RelayState,
  event: RelayEvent,
  out: RelayAction[],
  reuse: boolean,
): RelayState => {
  switch (state._tag) {
    case "Relaying":
      return relaying(state, event, out, reuse)
    case "Tunnel":
      return tunnel(state, event, out)
    case "HandedOff":
      return state
    case "Closed":
      // what the client still does once nothing is relayed: its socket goes
      if (event._tag === "ClientEnd" || event._tag === "ClientClose") out.push({ _tag: "DestroyClient" })
      return state
  }
}

/** The events of the daemon connection in use; those of an older one are ignored. */
const current = (s: Relaying, id: number) => s.daemon?.open === true && s.daemon.id === id

/** One step's work; one object for all steps, as a step runs to its end before the next. */
const work: Work = {
  s: undefined as unknown as Work["s"],
  out: [],
  end: undefined,
  ownRequest: false,
  ownResponse: false,
  ownPending: false,
}

const relaying = (state: Relaying, event: RelayEvent, out: RelayAction[], reuse: boolean): RelayState => {
  const w = work
  w.s = reuse ? (state as Work["s"]) : { ...state }
  w.out = out
  w.end = undefined
  w.ownRequest = reuse
  w.ownResponse = reuse
  w.ownPending = reuse
  const s = w.s
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
      if (current(s, event.id)) follow(w, event.chunk)
      break
    case "DaemonError":
      if (s.daemon?.id === event.id) s.daemon = { ...s.daemon, error: event.error }
      break
    case "DaemonClose":
      if (current(s, event.id)) daemonClosed(w)
      break
    case "DaemonIdle":
      if (current(s, event.id)) daemonIdle(w)
      break
    case "DaemonFull":
      if (current(s, event.id)) s.daemonFull = true
      break
    case "DaemonDrain":
      if (current(s, event.id)) s.daemonFull = false
      break
  }
  if (w.end !== undefined) return w.end
  // the client is read only while the daemon takes its bytes and the relay does not wait
  if (s.daemonFull && !s.clientPaused) {
    s.clientPaused = true
    w.out.push({ _tag: "PauseClient" })
  } else if (s.clientPaused && !s.daemonFull && !waiting(s.request)) {
    s.clientPaused = false
    w.out.push({ _tag: "ResumeClient" })
  }
  return s
}

const CLOSED: Closed = { _tag: "Closed" }

/** Bytes both ways as they are, each side read only while the other takes them. */
const tunnel = (state: Tunnel, event: RelayEvent, out: RelayAction[]): RelayState => {
  const mine = "id" in event && event.id === state.daemon
  switch (event._tag) {
    case "ClientData":
      out.push({ _tag: "ToDaemon", data: event.chunk })
      return state
    case "DaemonData":
      if (mine) out.push({ _tag: "ToClient", data: event.chunk })
      return state
    case "ClientEnd":
      out.push({ _tag: "EndDaemon", id: state.daemon })
      return state
    case "DaemonClose":
      if (!mine) return state
      out.push({ _tag: "EndClient", page: undefined })
      return CLOSED
    case "ClientClose":
      out.push({ _tag: "DestroyClient" }, { _tag: "DropDaemon", id: state.daemon })
      return CLOSED
    case "ClientFull":
      out.push({ _tag: "PauseDaemon" })
      return { ...state, clientFull: true }
    case "ClientDrain":
      if (!state.clientFull) return state
      out.push({ _tag: "ResumeDaemon" })
      return { ...state, clientFull: false }
    case "DaemonFull":
      if (!mine || state.clientPaused) return state
      out.push({ _tag: "PauseClient" })
      return { ...state, daemonFull: true, clientPaused: true }
    case "DaemonDrain":
      if (!mine || !state.clientPaused) return state
      out.push({ _tag: "ResumeClient" })
      return { ...state, daemonFull: false, clientPaused: false }
    default:
      return state
  }
}
