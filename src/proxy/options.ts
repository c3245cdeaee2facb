import { Duration } from "effect"
import type { Settings } from "../domain/Settings.js"

/** The proxy's settings with their defaults (docs/proxy.md). */
export interface ProxyOptions {
  readonly enable: boolean
  readonly host: string
  readonly port: number
  readonly https: boolean
  readonly tld: string
  readonly autoStart: boolean
  /** Milliseconds a request waits for a daemon started on request. */
  readonly autoStartTimeout: number
}

/** The `proxy` group as the schema may or may not have it: every key read defensively. */
interface MaybeProxy {
  readonly enable?: unknown
  readonly host?: unknown
  readonly port?: unknown
  readonly https?: unknown
  readonly tld?: unknown
  readonly auto_start?: unknown
  readonly auto_start_timeout?: unknown
}

const bool = (v: unknown, fallback: boolean) => (typeof v === "boolean" ? v : fallback)
const text = (v: unknown, fallback: string) => (typeof v === "string" && v !== "" ? v : fallback)

/**
 * `[settings.proxy]` with the defaults: off, 127.0.0.1, 7443 with https (7080 without), https,
 * `localhost`, auto start within 30s.
 */
export const proxyOptions = (settings: Settings): ProxyOptions => {
  const p = ((settings as { readonly proxy?: MaybeProxy }).proxy ?? {}) satisfies MaybeProxy
  const https = bool(p.https, true)
  const timeout = p.auto_start_timeout
  return {
    enable: bool(p.enable, false),
    host: text(p.host, "127.0.0.1"),
    port: typeof p.port === "number" ? p.port : https ? 7443 : 7080,
    https,
    tld: text(p.tld, "localhost")
      .replace(/^\.+|\.+$/g, "")
      .toLowerCase(),
    autoStart: bool(p.auto_start, true),
    autoStartTimeout: Duration.isDuration(timeout) ? Duration.toMillis(timeout) : 30_000,
  }
}
