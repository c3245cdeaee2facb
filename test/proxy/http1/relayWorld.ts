// A connection's world for the relay's `step`: a client, a router and daemons that react to its
// actions as sockets would (a write over the high-water mark returns false, a paused side sends
// nothing, a routing comes at once or later), and a schedule that picks which event comes next.
import { ChunkedBody } from "../../../src/proxy/http1/body.js"
import {
  heldBytes,
  initialState,
  type RelayAction,
  type RelayEvent,
  type RelayState,
} from "../../../src/proxy/http1/relayState.js"
import { failure } from "../../../src/proxy/pages.js"
import type { Routing } from "../../../src/proxy/route.js"
import {
  clientBytes,
  daemonResponse,
  HIGH_WATER,
  MAX_HEAD,
  MAX_READ,
  MAX_RESPONSE_HEAD,
  PORTS,
  REMOTE,
  type Scenario,
  type Schedule,
} from "./relayScenario.js"

export type Step = (state: RelayState, event: RelayEvent) => readonly [RelayState, ReadonlyArray<RelayAction>]

/** One daemon connection, as the daemon sees it. */
export interface Conn {
  readonly id: number
  readonly port: number
  received: string
  parsed: number
  out: string
  sent: number
  accepted: boolean
  closed: boolean
  /** It closes once `out` is sent (a response framed by the close). */
  closeAfter: boolean
  queued: number
  /** A write returned false: a drain follows the daemon's read. */
  full: boolean
  paused: boolean
}

/** What happened in one run. */
export interface Run {
  state: RelayState
  toClient: string
  page: string | undefined
  /** The relay ended or destroyed the client's connection. */
  closedByRelay: boolean
  /** The client closed its connection. */
  clientGone: boolean
  handOff: { bytes: string; delivered: number } | undefined
  conns: Conn[]
  delivered: number
  /** The first time a bound was passed. */
  overBound: string | undefined
}

const latin1 = (data: Buffer | string) => (typeof data === "string" ? data : data.toString("latin1"))

/** Writes to a side after the relay learned it was full, before it drained: what one read and a held head may add. */
const DAEMON_SLACK = 3 * (MAX_HEAD + 2 * MAX_READ)
const CLIENT_SLACK = 2 * MAX_READ + MAX_RESPONSE_HEAD

export const runRelay = (step: Step, scenario: Scenario, schedule: Schedule): Run => {
  const client = clientBytes(scenario)
  const r: Run = {
    state: initialState({
      proto: "http",
      responseTimeout: 1000,
      remote: REMOTE,
      maxHead: MAX_HEAD,
      maxResponseHead: MAX_RESPONSE_HEAD,
    }),
    toClient: "",
    page: undefined,
    closedByRelay: false,
    clientGone: false,
    handOff: undefined,
    conns: [],
    delivered: 0,
    overBound: undefined,
  }
  const queue: RelayEvent[] = []
  let routing: Routing | undefined
  let reads = 0
  const read = () => schedule.reads[reads++ % schedule.reads.length]!
  let choice = 0
  const choose = () => (choice < schedule.choices.length ? schedule.choices[choice++]! : 0)
  let clientPaused = false
  let clientQueued = 0
  let clientFull = false
  let clientSignaled = false
  let clientWrittenFull = 0
  let daemonSignaled = false
  let daemonWrittenFull = 0
  let clientEnded = false
  const current = (): Conn | undefined => {
    const conn = r.conns.at(-1)
    return conn?.closed === false ? conn : undefined
  }
  const over = (what: string) => {
    r.overBound ??= what
  }

  /** The daemon answers each whole request it received (the `slow` one never does). */
  const serve = (conn: Conn) => {
    while (conn.accepted && !conn.closeAfter) {
      const end = conn.received.indexOf("\r\n\r\n", conn.parsed)
      if (end < 0) return
      const head = conn.received.slice(conn.parsed, end)
      const id = /^[A-Z]+ \/r(\d+) /.exec(head)?.[1]
      if (id === undefined) return
      let bodyEnd = end + 4
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1]
      if (length !== undefined) bodyEnd += Number(length)
      else if (/\r\ntransfer-encoding: chunked/i.test(head)) {
        const framing = new ChunkedBody()
        const n = framing.feed(Buffer.from(conn.received.slice(bodyEnd), "latin1"), 0)
        if (n < 0 || !framing.done) return
        bodyEnd += n
      }
      if (conn.received.length < bodyEnd) return
      conn.parsed = bodyEnd
      const spec = scenario.requests[Number(id)]
      if (spec === undefined || conn.port === PORTS.slow) continue
      const response = daemonResponse(spec, Number(id))
      conn.out += response.bytes
      conn.closeAfter = response.close
    }
  }

  const perform = (a: RelayAction) => {
    switch (a._tag) {
      case "ToClient": {
        const data = latin1(a.data)
        r.toClient += data
        clientQueued += data.length
        if (clientSignaled) clientWrittenFull += data.length
        if (clientWrittenFull > CLIENT_SLACK) over(`${clientWrittenFull} bytes written to a full client`)
        if (clientQueued > HIGH_WATER) {
          clientFull = true
          queue.push({ _tag: "ClientFull" })
        }
        return
      }
      case "ToDaemon": {
        const conn = current()
        if (conn === undefined) return
        const data = latin1(a.data)
        conn.received += data
        conn.queued += data.length
        if (daemonSignaled) daemonWrittenFull += data.length
        if (daemonWrittenFull > DAEMON_SLACK) over(`${daemonWrittenFull} bytes written to a full daemon`)
        if (conn.queued > HIGH_WATER) {
          conn.full = true
          queue.push({ _tag: "DaemonFull", id: conn.id })
        }
        serve(conn)
        return
      }
      case "Route": {
        const slug = a.host.split(".")[0]!
        const port = PORTS[slug]
        const answer: Routing =
          port === undefined
            ? failure(404, "Not Found", [`No slug ${slug} is configured.`])
            : { _tag: "Target", port, host: a.host }
        if (choose() % 2 === 0) queue.push({ _tag: "Routed", routing: answer })
        else routing = answer
        return
      }
      case "Connect":
        r.conns.push({
          id: a.id,
          port: a.target.port,
          received: "",
          parsed: 0,
          out: "",
          sent: 0,
          accepted: false,
          closed: false,
          closeAfter: false,
          queued: 0,
          full: false,
          paused: false,
        })
        daemonSignaled = false
        daemonWrittenFull = 0
        return
      case "DropDaemon":
      case "EndDaemon": {
        const conn = r.conns.find((c) => c.id === a.id)
        if (conn !== undefined) conn.closed = true
        return
      }
      case "PauseDaemon":
      case "ResumeDaemon": {
        const conn = current()
        if (conn !== undefined) conn.paused = a._tag === "PauseDaemon"
        return
      }
      case "PauseClient":
        clientPaused = true
        return
      case "ResumeClient":
        clientPaused = false
        return
      case "EndClient":
        r.page ??= a.page
        r.closedByRelay = true
        return
      case "DestroyClient":
        r.closedByRelay = true
        return
      case "HandOff":
        r.handOff = { bytes: latin1(a.bytes ?? ""), delivered: r.delivered }
        return
    }
  }

  const apply = (event: RelayEvent) => {
    queue.push(event)
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (next._tag === "ClientFull") clientSignaled = true
      if (next._tag === "ClientDrain") clientSignaled = false
      if (next._tag === "DaemonFull") daemonSignaled = true
      if (next._tag === "DaemonDrain") daemonSignaled = false
      const [state, actions] = step(r.state, next)
      r.state = state
      for (const action of actions) perform(action)
      const held = heldBytes(state)
      if (held.input > MAX_HEAD + 2 * MAX_READ) over(`${held.input} client bytes held`)
      if (held.responseHead > MAX_RESPONSE_HEAD) over(`${held.responseHead} response head bytes held`)
    }
  }

  /** The events that may come now, each with its weight and what it does to the world. */
  const options = (chaos: number) => {
    const list: Array<[number, () => RelayEvent | undefined]> = []
    const conn = current()
    const reading = !r.closedByRelay && !r.clientGone && r.handOff === undefined
    if (reading && !clientPaused && r.delivered < client.bytes.length)
      list.push([
        200,
        () => {
          const n = Math.min(read(), client.bytes.length - r.delivered)
          const chunk = Buffer.from(client.bytes.slice(r.delivered, r.delivered + n), "latin1")
          r.delivered += n
          return { _tag: "ClientData", chunk }
        },
      ])
    if (routing !== undefined)
      list.push([
        100,
        () => {
          const answer = routing!
          routing = undefined
          return { _tag: "Routed", routing: answer }
        },
      ])
    if (clientQueued > 0)
      list.push([
        80,
        () => {
          clientQueued = 0
          if (!clientFull) return undefined
          clientFull = false
          return { _tag: "ClientDrain" }
        },
      ])
    if (conn !== undefined) {
      if (!conn.accepted) {
        list.push([
          100,
          () => {
            conn.accepted = true
            serve(conn)
            return undefined
          },
        ])
        if (chaos > 0)
          list.push([
            chaos,
            () => {
              conn.closed = true
              queue.push({
                _tag: "DaemonError",
                id: conn.id,
                error: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }),
              })
              return { _tag: "DaemonClose", id: conn.id }
            },
          ])
      }
      if (conn.queued > 0)
        list.push([
          80,
          () => {
            conn.queued = 0
            if (!conn.full) return undefined
            conn.full = false
            return { _tag: "DaemonDrain", id: conn.id }
          },
        ])
      if (conn.accepted && !conn.paused && conn.sent < conn.out.length)
        list.push([
          200,
          () => {
            const n = Math.min(read(), conn.out.length - conn.sent)
            const chunk = Buffer.from(conn.out.slice(conn.sent, conn.sent + n), "latin1")
            conn.sent += n
            return { _tag: "DaemonData", id: conn.id, chunk }
          },
        ])
      if (conn.closeAfter && conn.sent === conn.out.length)
        list.push([
          100,
          () => {
            conn.closed = true
            return { _tag: "DaemonClose", id: conn.id }
          },
        ])
      if (chaos > 0) {
        list.push([
          chaos,
          () => {
            conn.closed = true
            return { _tag: "DaemonClose", id: conn.id }
          },
        ])
        list.push([chaos, () => ({ _tag: "DaemonIdle", id: conn.id })])
      }
    }
    if (chaos > 0 && reading) {
      list.push([chaos, () => ({ _tag: "ClientIdle" })])
      if (r.delivered === client.bytes.length && !clientEnded)
        list.push([
          chaos,
          () => {
            clientEnded = true
            return { _tag: "ClientEnd" }
          },
        ])
      list.push([
        chaos,
        () => {
          r.clientGone = true
          return { _tag: "ClientClose" }
        },
      ])
    }
    return list
  }

  // the scheduled part: any event may come, closes and timers as often as `chaos` says
  while (choice < schedule.choices.length) {
    const list = options(schedule.chaos)
    if (list.length === 0) break
    let pick = choose() % list.reduce((n, [w]) => n + w, 0)
    let i = 0
    while (pick >= list[i]![0]) pick -= list[i++]![0]
    const event = list[i]![1]()
    if (event !== undefined) apply(event)
  }
  // then the world settles: everything sent and read, no closes; a daemon that never answers
  // meets the response timeout
  for (let rounds = 0; rounds < 10_000; rounds++) {
    const list = options(0)
    if (list.length > 0) {
      const event = list[0]![1]()
      if (event !== undefined) apply(event)
      continue
    }
    const conn = current()
    if (r.state._tag !== "Relaying" || conn === undefined || r.state.pending.length === 0) break
    apply({ _tag: "DaemonIdle", id: conn.id })
  }
  return r
}
