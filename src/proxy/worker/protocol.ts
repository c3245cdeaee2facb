// The messages between the supervisor and the proxy's worker thread (src/proxy/server.ts and
// src/proxy/worker/entry.ts): structured clones over the worker's port, never a wire format.
import type { ProxyFailure } from "../pages.js"
import type { ProxyTarget } from "../route.js"

/** What the worker serves, given as its `workerData`. */
export interface WorkerSetup {
  readonly https: boolean
  readonly host: string
  readonly port: number
  readonly tld: string
  /** Where the local CA lives (HTTPS only). */
  readonly stateDir: string
  readonly responseTimeout: number
  readonly idleTimeout: number
}

/** The supervisor's answer to a slug: the targets to take in turn, or the failure to answer with. */
export interface Resolved {
  readonly targets: ReadonlyArray<ProxyTarget> | undefined
  readonly failure: ProxyFailure | undefined
  /** No daemon changed while it was resolved: the worker may keep the targets until told to forget. */
  readonly cacheable: boolean
}

/** Supervisor → worker. */
export type ToWorker =
  | ({ readonly _tag: "Resolved"; readonly id: number } & Resolved)
  /** A daemon or the `[slugs]` table changed: every kept target is resolved again. */
  | { readonly _tag: "Forget" }
  /** Take no more connections; the idle ones end, the others finish. */
  | { readonly _tag: "StopAccepting" }
  /** End every connection now. */
  | { readonly _tag: "Close" }

/** Worker → supervisor. */
export type FromWorker =
  | { readonly _tag: "Listening"; readonly port: number }
  | { readonly _tag: "NotStarted"; readonly why: string }
  /** Something for the supervisor's log (the local CA was created or replaced). */
  | { readonly _tag: "Note"; readonly text: string }
  | {
      readonly _tag: "Resolve"
      readonly id: number
      readonly slug: string
      readonly worktree: string | undefined
    }
  /** The listener is closed (its port free); its connections finish. */
  | { readonly _tag: "NotAccepting" }
  /** The listener is closed and every connection it took has ended. */
  | { readonly _tag: "Closed" }
