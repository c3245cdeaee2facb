import * as net from "node:net"
import { Context, Effect, Layer, Option } from "effect"
import { type PortHolder, portHolder } from "../../process/sockets.js"

/**
 * Whether a TCP port can be bound right now. The only reliable answer is to try: the listening table
 * in `/proc/net/tcp` knows nothing of privileged ports or of the kernel's rules for overlapping
 * addresses, so we bind a throw-away server and close it again.
 */

/** `reason` is "in-use" (EADDRINUSE), "permission" (EACCES) or the error code of anything else. */
export type PortCheck =
  | { readonly free: true }
  | { readonly free: false; readonly reason: "in-use" | "permission" | (string & {}) }

/** The IPv6 wildcard also covers IPv4 (dual stack), so one bind sees listeners of both families. */
const DUAL_STACK = "::"
const IPV4_ANY = "0.0.0.0"
/** Errors meaning "this host has no IPv6", not "the port is taken". */
const NO_IPV6 = new Set(["EAFNOSUPPORT", "EADDRNOTAVAIL"])

const unavailable = (code: string): PortCheck => {
  if (code === "EADDRINUSE") return { free: false, reason: "in-use" }
  if (code === "EACCES") return { free: false, reason: "permission" }
  return { free: false, reason: code }
}

/**
 * One bind attempt; `withoutIpv6` is what to try instead when the address family is unavailable.
 * `exclusive` keeps a cluster primary from handing us a shared handle. The server is closed on every
 * path: after a successful listen, after an error (harmless when nothing is bound) and by the
 * canceler when the fiber is interrupted while waiting.
 */
const tryBind = (
  host: string,
  port: number,
  withoutIpv6?: () => Effect.Effect<PortCheck>,
): Effect.Effect<PortCheck> =>
  Effect.async<PortCheck>((resume) => {
    const server = net.createServer()
    server.once("error", (error: NodeJS.ErrnoException) => {
      server.close()
      const code = error.code ?? error.message
      resume(withoutIpv6 && NO_IPV6.has(code) ? withoutIpv6() : Effect.succeed(unavailable(code)))
    })
    server.listen({ host, port, exclusive: true }, () => {
      // resume only once the port is released, so a daemon started right after finds it free
      server.close(() => resume(Effect.succeed({ free: true })))
    })
    return Effect.sync(() => {
      server.close()
    })
  })

/** Whether `port` can be bound on every local address: dual stack, or IPv4 alone on hosts without IPv6. */
export const isPortFree = (port: number): Effect.Effect<PortCheck> =>
  tryBind(DUAL_STACK, port, () => tryBind(IPV4_ANY, port))

export interface PortAvailabilityShape {
  readonly check: (port: number) => Effect.Effect<PortCheck>
  /** The process listening on a port, when it can be found (see `portHolder`). */
  readonly holder: (port: number) => Effect.Effect<Option.Option<PortHolder>>
}

/**
 * The OS edge of port checks, as a service so tests can answer "busy" without binding real ports.
 * Optional: the supervisor reads it with `Effect.serviceOption` and falls back to `livePortAvailability`.
 */
export class PortAvailability extends Context.Tag("supervisor/PortAvailability")<
  PortAvailability,
  PortAvailabilityShape
>() {}

export const livePortAvailability: PortAvailabilityShape = {
  check: isPortFree,
  holder: (port) => Effect.sync(() => Option.fromNullable(portHolder(port))),
}

export const PortAvailabilityLive = Layer.succeed(PortAvailability, livePortAvailability)
