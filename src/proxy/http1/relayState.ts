import type { ProxyFailure } from "../pages.js"
import type { Routed, Routing } from "../route.js"
import type { BodyFraming } from "./body.js"
import { MAX_HEAD, type RequestHead } from "./head.js"

/**
 * The relay of one client connection as data (docs/proxy.md, "How plain HTTP is relayed"):
 * `step` (relayStep.ts) moves a `RelayState` on by one `RelayEvent` and says what to do as
 * `RelayAction`s; relay.ts performs them on the sockets and feeds their events back.
 */

/** What a state knows of its connection, fixed for its life. */
export interface RelayConfig {
  readonly proto: "http" | "https"
  /** The response timeout in ms, named by the 504 page (relay.ts runs the timer). */
  readonly responseTimeout: number
  /** The client's address, appended to X-Forwarded-For. */
  readonly remote: string
  /** A longer partial request head is given to Node's server (MAX_HEAD). */
  readonly maxHead: number
  /** A longer partial response head is not followed: its connection ends with the daemon's. */
  readonly maxResponseHead: number
}

/** A response head longer than this is not followed: the connection then ends with the daemon's. */
export const MAX_RESPONSE_HEAD = 64 * 1024

/** A request sent to the daemon and not answered yet. */
export interface Pending {
  readonly head: RequestHead
  /** The bytes sent, when the request may be sent again on a new connection (retry.ts). */
  readonly wire: string | undefined
}

/** The daemon connection in use, or the last one (`open` false) whose target a retry reuses. */
export interface Daemon {
  /** Events of the daemon's socket carry this id; those of an older socket are ignored. */
  readonly id: number
  /** Its address and port: a request for another one waits for the responses, then switches. */
  readonly key: string
  readonly target: Routed
  readonly open: boolean
  /** Why it closed, when it failed. */
  readonly error: (Error & { code?: string }) | undefined
}

/** What is done once no response is outstanding. */
export type Deferred =
  | { readonly _tag: "Answer"; readonly head: RequestHead | undefined; readonly failure: ProxyFailure }
  | { readonly _tag: "Switch"; readonly head: RequestHead; readonly target: Routed; readonly key: string }
  | { readonly _tag: "HandOff" }

/** Where the reading of requests is. */
export type RequestSide =
  /** Between requests: `input` holds the start of the next head, if any. */
  | { readonly _tag: "Head" }
  /** A request body is relayed as it comes. */
  | { readonly _tag: "Body"; readonly framing: BodyFraming }
  /** A request head was read and waits for its routing. */
  | { readonly _tag: "Routing"; readonly head: RequestHead }
  /**
   * The pending requests, which the daemon closed on without a byte of answer, wait to be
   * routed once more (docs/replicas.md); reading then goes on as `after`.
   */
  | {
      readonly _tag: "Rerouting"
      readonly why: ProxyFailure
      readonly failed: string
      readonly after: RequestSide
    }
  /** Waiting for the outstanding responses before `then`. */
  | { readonly _tag: "Quiet"; readonly then: Deferred }

/** Where the reading of the daemon's responses is. */
export type ResponseSide =
  /** No byte of the oldest pending request's response yet. */
  | { readonly _tag: "Idle" }
  /** Part of a response head. */
  | { readonly _tag: "Head"; readonly partial: Buffer }
  | { readonly _tag: "Body"; readonly framing: BodyFraming }
  /** The rest runs to the daemon's close. */
  | { readonly _tag: "Close" }

/** Which side may not take more bytes, and whether the client's reading is paused. */
export interface Flow {
  readonly clientFull: boolean
  readonly daemonFull: boolean
  readonly clientPaused: boolean
}

/** HTTP/1.1 requests relayed one after the other. */
export interface Relaying extends Flow {
  readonly _tag: "Relaying"
  readonly config: RelayConfig
  /** Client bytes not relayed yet: a partial head, or what came while the relay waited. */
  readonly input: Buffer | undefined
  readonly request: RequestSide
  readonly response: ResponseSide
  /** Oldest first. */
  readonly pending: ReadonlyArray<Pending>
  readonly daemon: Daemon | undefined
  /** Responses the daemon's connection carried: a kept-alive one has at least one. */
  readonly answered: number
  readonly nextId: number
  /** The pending requests were routed again once and not answered since. */
  readonly rerouted: boolean
  readonly clientEnded: boolean
}

/** After a 101: bytes are relayed both ways as they are. */
export interface Tunnel extends Flow {
  readonly _tag: "Tunnel"
  readonly daemon: number
}

/** The connection was given to Node's HTTP server. */
export interface HandedOff {
  readonly _tag: "HandedOff"
}

/** Nothing more is relayed. */
export interface Closed {
  readonly _tag: "Closed"
}

export type RelayState = Relaying | Tunnel | HandedOff | Closed

export type RelayEvent =
  | { readonly _tag: "ClientData"; readonly chunk: Buffer }
  | { readonly _tag: "ClientEnd" }
  /** The client's socket closed or failed. */
  | { readonly _tag: "ClientClose" }
  /** The client's connection was idle for the idle timeout. */
  | { readonly _tag: "ClientIdle" }
  /** A write to the client returned false. */
  | { readonly _tag: "ClientFull" }
  | { readonly _tag: "ClientDrain" }
  /** The answer to the last `Route`. */
  | { readonly _tag: "Routed"; readonly routing: Routing }
  | { readonly _tag: "DaemonData"; readonly id: number; readonly chunk: Buffer }
  | { readonly _tag: "DaemonError"; readonly id: number; readonly error: Error & { code?: string } }
  | { readonly _tag: "DaemonClose"; readonly id: number }
  /** The daemon's connection was idle for the response timeout. */
  | { readonly _tag: "DaemonIdle"; readonly id: number }
  /** A write to the daemon returned false. */
  | { readonly _tag: "DaemonFull"; readonly id: number }
  | { readonly _tag: "DaemonDrain"; readonly id: number }

export type RelayAction =
  /** Latin-1 when a string (a head). */
  | { readonly _tag: "ToClient"; readonly data: Buffer | string }
  | { readonly _tag: "ToDaemon"; readonly data: Buffer | string }
  /**
   * Route a request by its host (route.ts); its answer comes back as `Routed`. `again` when its
   * target failed it: what the resolver kept of the slug may be stale.
   */
  | { readonly _tag: "Route"; readonly host: string; readonly hops: number; readonly again?: true }
  | { readonly _tag: "Connect"; readonly id: number; readonly target: Routed }
  /** Destroy the daemon's connection. */
  | { readonly _tag: "DropDaemon"; readonly id: number }
  /** End the daemon's side of a tunnel. */
  | { readonly _tag: "EndDaemon"; readonly id: number }
  | { readonly _tag: "PauseDaemon" }
  | { readonly _tag: "ResumeDaemon" }
  | { readonly _tag: "PauseClient" }
  | { readonly _tag: "ResumeClient" }
  /** End the client's connection, after `page` (UTF-8) when given. */
  | { readonly _tag: "EndClient"; readonly page: string | undefined }
  | { readonly _tag: "DestroyClient" }
  /** Give the client's connection to Node's server, `bytes` read from it first. */
  | { readonly _tag: "HandOff"; readonly bytes: Buffer | undefined }

export const HEAD: RequestSide = { _tag: "Head" }
export const IDLE: ResponseSide = { _tag: "Idle" }

/** A new connection's state; the limits default to MAX_HEAD and MAX_RESPONSE_HEAD. */
export const initialState = (
  config: Omit<RelayConfig, "maxHead" | "maxResponseHead"> & Partial<RelayConfig>,
): RelayState => ({
  _tag: "Relaying",
  config: {
    ...config,
    maxHead: config.maxHead ?? MAX_HEAD,
    maxResponseHead: config.maxResponseHead ?? MAX_RESPONSE_HEAD,
  },
  input: undefined,
  request: HEAD,
  response: IDLE,
  pending: [],
  daemon: undefined,
  answered: 0,
  nextId: 1,
  rerouted: false,
  clientEnded: false,
  clientFull: false,
  daemonFull: false,
  clientPaused: false,
})

/**
 * The bytes a state holds itself: the unrelayed client bytes and a partial response head. The
 * bound (docs/proxy.md): a partial request head of at most `maxHead` and what one read added
 * to it plus at most one read more while the relay waits (reading is then paused), and a
 * partial response head of at most `maxResponseHead`.
 */
export const heldBytes = (state: RelayState): { readonly input: number; readonly responseHead: number } =>
  state._tag !== "Relaying"
    ? { input: 0, responseHead: 0 }
    : {
        input: state.input?.length ?? 0,
        responseHead: state.response._tag === "Head" ? state.response.partial.length : 0,
      }
