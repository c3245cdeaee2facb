import { MAX_HOPS, namesOfHost } from "./headers.js"
import { failure, type ProxyFailure } from "./pages.js"

/** Where a slug's requests go now: a port on this host. */
export interface ProxyTarget {
  readonly _tag: "Target"
  readonly port: number
  /** The loopback address it listens on (default 127.0.0.1; `::1` for an IPv6-only server). */
  readonly address?: string | undefined
}
export type Resolution = ProxyTarget | ProxyFailure

export const DEFAULT_ADDRESS = "127.0.0.1"

export interface RouteOptions {
  readonly tld: string
  /**
   * The slug's target, starting its daemon when needed (src/proxy/targets.ts); known ones at once.
   * `worktree` is the label before the slug (`feature-x.shop.localhost`), when the host has one.
   */
  readonly resolve: (slug: string, worktree?: string) => Resolution | Promise<Resolution>
  /** Drops the targets `resolve` kept: one of them failed a request (the relay routes it again). */
  readonly forget?: () => void
}

/** A routed request: the daemon's port and the host it was asked for. */
export interface Routed {
  readonly _tag: "Target"
  readonly port: number
  readonly address?: string | undefined
  readonly host: string
}
export type Routing = Routed | ProxyFailure

/** Routes a request by its host to a slug's target, or the failure to answer with. */
export const route = (
  host: string | undefined,
  hops: number,
  options: RouteOptions,
): Routing | Promise<Routing> => {
  if (host === undefined)
    return failure(400, "Bad Request", [
      `This is the supervisor's proxy: a request needs a Host header such as <slug>.${options.tld}.`,
    ])
  if (hops >= MAX_HOPS)
    return failure(508, "Loop Detected", [
      `The request went through the proxy more than ${MAX_HOPS} times: a daemon forwards to its own slug.`,
    ])
  const { slug, worktree } = namesOfHost(host, options.tld)
  if (slug === undefined)
    return failure(404, "Not Found", [
      `${host} is not a proxy host: the proxy answers <slug>.${options.tld} (settings.proxy.tld).`,
    ])
  const withHost = (r: Resolution): Routing => (r._tag === "Target" ? routedTo(r, host) : r)
  const resolved = worktree === undefined ? options.resolve(slug) : options.resolve(slug, worktree)
  return resolved instanceof Promise ? resolved.then(withHost) : withHost(resolved)
}

/**
 * A target with the host it was asked for, made once per target and host: a known slug's target
 * is the same object request after request (src/proxy/targets.ts), so its routings are too.
 */
const routings = new WeakMap<ProxyTarget, Map<string, Routed>>()
const MAX_HOSTS_KEPT = 16
const routedTo = (target: ProxyTarget, host: string): Routed => {
  let byHost = routings.get(target)
  if (byHost === undefined) {
    byHost = new Map()
    routings.set(target, byHost)
  }
  let routed = byHost.get(host)
  if (routed === undefined) {
    routed = { ...target, host }
    // a client may spell one slug's host many ways (`:port`, letter case): a few are kept
    if (byHost.size < MAX_HOSTS_KEPT) byHost.set(host, routed)
  }
  return routed
}

/** Runs `then` on a routing now when it is known, else when it settles. */
export const whenRouted = (
  routed: Routing | Promise<Routing>,
  then: (r: Routing) => void,
  onError: (f: ProxyFailure) => void,
) => {
  if (!(routed instanceof Promise)) return then(routed)
  routed.then(then, (e: unknown) => onError(failure(500, "Proxy Error", [String(e)])))
}

/** The 502 of a daemon that does not take the connection. */
export const unreachable = (port: number, e: Error & { code?: string }) =>
  failure(502, "Bad Gateway", [
    `The daemon does not answer on port ${port}: ${e.code ?? e.message}.`,
    "It may still be starting, or listen on another port; `supervisor logs` shows its output.",
  ])
