import * as net from "node:net"
import { failure } from "../pages.js"
import { DEFAULT_ADDRESS, type RouteOptions, route } from "../route.js"
import { initialState, type RelayAction, type RelayEvent, type RelayState } from "./relayState.js"
import { advance } from "./relayStep.js"

export interface RelayOptions extends RouteOptions {
  readonly proto: "http" | "https"
  /** How long the daemon may take to start a response before a 504. */
  readonly responseTimeout: number
  /** How long an idle client connection is kept open (Node's keep-alive timeout is 5 s). */
  readonly idleTimeout: number
  /** Gives a connection to Node's HTTP server, with the bytes read so far pushed back into it. */
  readonly handOff: (socket: net.Socket) => void
}

/**
 * The sockets of one relayed connection: their events go through `step` (relayStep.ts; here as
 * `advance`, which fills one reused array and changes the state in place), whose actions are
 * done here. Events that come while actions are done wait in `queue`, so each step sees the
 * state the previous one left.
 */
class RelaySockets {
  private state: RelayState
  private daemon: net.Socket | undefined
  private daemonId = 0
  private readonly queue: RelayEvent[] = []
  /** The actions of the current step (one array for all steps). */
  private readonly actions: RelayAction[] = []
  private busy = false

  constructor(
    private readonly client: net.Socket,
    private readonly options: RelayOptions,
  ) {
    this.state = initialState({
      proto: options.proto,
      responseTimeout: options.responseTimeout,
      remote: (client.remoteAddress ?? "").replace(/^::ffff:/, ""),
    })
    client.setNoDelay(true)
    client.setTimeout(options.idleTimeout)
    client.on("data", this.onData)
    client.on("end", this.onEnd)
    client.on("timeout", this.onIdle)
    client.on("error", this.onClose)
    client.on("close", this.onClose)
    client.on("drain", this.onDrain)
  }

  private readonly onData = (chunk: Buffer) => this.dispatch({ _tag: "ClientData", chunk })
  private readonly onEnd = () => this.dispatch({ _tag: "ClientEnd" })
  private readonly onIdle = () => this.dispatch({ _tag: "ClientIdle" })
  private readonly onClose = () => this.dispatch({ _tag: "ClientClose" })
  private readonly onDrain = () => this.dispatch({ _tag: "ClientDrain" })

  private dispatch(event: RelayEvent) {
    if (this.busy) return void this.queue.push(event)
    this.busy = true
    try {
      for (let next: RelayEvent | undefined = event; next !== undefined; next = this.queue.shift()) {
        const actions = this.actions
        actions.length = 0
        this.state = advance(this.state, next, actions, true)
        if (actions.length === 1) this.perform(actions[0]!)
        else if (actions.length > 1) {
          // the writes of one step leave together
          const corked = next._tag === "DaemonData" ? this.client : this.daemon
          corked?.cork()
          for (const action of actions) this.perform(action)
          corked?.uncork()
        }
      }
    } finally {
      this.busy = false
    }
  }

  private perform(action: RelayAction) {
    const client = this.client
    switch (action._tag) {
      case "ToClient": {
        const data = action.data
        if (!(typeof data === "string" ? client.write(data, "latin1") : client.write(data)))
          this.queue.push({ _tag: "ClientFull" })
        return
      }
      case "ToDaemon": {
        const data = action.data
        const daemon = this.daemon
        if (daemon === undefined) return
        if (!(typeof data === "string" ? daemon.write(data, "latin1") : daemon.write(data)))
          this.queue.push({ _tag: "DaemonFull", id: this.daemonId })
        return
      }
      case "Route": {
        if (action.again === true) this.options.forget?.()
        const routing = route(action.host, action.hops, this.options)
        if (!(routing instanceof Promise)) return void this.queue.push({ _tag: "Routed", routing })
        routing.then(
          (r) => this.dispatch({ _tag: "Routed", routing: r }),
          (e: unknown) =>
            this.dispatch({ _tag: "Routed", routing: failure(500, "Proxy Error", [String(e)]) }),
        )
        return
      }
      case "Connect":
        return this.connect(action.id, action.target.address ?? DEFAULT_ADDRESS, action.target.port)
      case "DropDaemon":
        if (action.id === this.daemonId) {
          this.daemon?.destroy()
          this.daemon = undefined
        }
        return
      case "EndDaemon":
        if (action.id === this.daemonId) this.daemon?.end()
        return
      case "PauseDaemon":
        return void this.daemon?.pause()
      case "ResumeDaemon":
        return void this.daemon?.resume()
      case "PauseClient":
        return void client.pause()
      case "ResumeClient":
        return void client.resume()
      case "EndClient":
        return void (action.page === undefined ? client.end() : client.end(action.page))
      case "DestroyClient":
        return void client.destroy()
      case "HandOff":
        return this.handOff(action.bytes)
    }
  }

  private connect(id: number, host: string, port: number) {
    const daemon = net.connect({ host, port, noDelay: true })
    this.daemon = daemon
    this.daemonId = id
    daemon.setTimeout(this.options.responseTimeout)
    daemon.on("data", (chunk: Buffer) => this.dispatch({ _tag: "DaemonData", id, chunk }))
    daemon.on("timeout", () => this.dispatch({ _tag: "DaemonIdle", id }))
    daemon.on("drain", () => this.dispatch({ _tag: "DaemonDrain", id }))
    daemon.on("error", (error) => this.dispatch({ _tag: "DaemonError", id, error }))
    daemon.on("close", () => {
      if (this.daemonId === id) this.daemon = undefined
      this.dispatch({ _tag: "DaemonClose", id })
    })
  }

  /** Gives the client's connection to Node's HTTP server, with the bytes read from it first. */
  private handOff(bytes: Buffer | undefined) {
    const client = this.client
    client.off("data", this.onData)
    client.off("end", this.onEnd)
    client.off("timeout", this.onIdle)
    client.off("error", this.onClose)
    client.off("close", this.onClose)
    client.off("drain", this.onDrain)
    client.setTimeout(0)
    client.pause()
    if (bytes !== undefined && bytes.length > 0) client.unshift(bytes)
    this.options.handOff(client)
    client.resume()
  }
}

/**
 * Relays one accepted plain-HTTP/1.1 connection to daemons (docs/proxy.md): request heads are
 * read and rewritten, bodies and responses relayed as they are; what the relay does not handle
 * goes to Node's HTTP server through `handOff`. The rules are those of `step` (relayStep.ts).
 */
export const relayConnection = (client: net.Socket, options: RelayOptions): void => {
  new RelaySockets(client, options)
}
