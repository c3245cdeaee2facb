// The proxy's settings as they apply (the port resolved from `https`) and the address of a slug.
import type { Duration } from "effect"
import type { Settings } from "./Settings.js"

/** `[settings.proxy]` with every value decided: the port follows `https` when it is not set. */
export interface EffectiveProxy {
  readonly enable: boolean
  readonly host: string
  readonly port: number
  readonly https: boolean
  readonly tld: string
  readonly auto_start: boolean
  readonly auto_start_timeout: Duration.Duration
}

/** The default port: 7443 with https, 7080 without (unprivileged ports, unlike 443 and 80). */
export const defaultProxyPort = (https: boolean): number => (https ? 7443 : 7080)

export const effectiveProxy = (settings: Settings): EffectiveProxy => {
  const p = settings.proxy
  return { ...p, port: p.port ?? defaultProxyPort(p.https) }
}

/**
 * The proxy listener's address without its port, as `supervisor supervisor status` says it:
 * `http://127.0.0.1`, `https://[::1]` (an empty host is the default, 127.0.0.1).
 */
export const proxyListenerOrigin = (https: boolean, host: string): string => {
  const h = host === "" ? "127.0.0.1" : host
  return `${https ? "https" : "http"}://${h.includes(":") ? `[${h}]` : h}`
}

/** `https://shop.localhost:7443`: the address of `slug` through the proxy (the port always written). */
export const slugUrl = (slug: string, proxy: EffectiveProxy): string =>
  `${proxy.https ? "https" : "http"}://${slug.toLowerCase()}.${proxy.tld}:${proxy.port}`

/** The `proxy_url` of a daemon entry: its slug's address while the proxy is enabled, else null. */
export const proxyUrlOf = (slug: string | null, proxy: EffectiveProxy): string | null =>
  slug === null || !proxy.enable ? null : slugUrl(slug, proxy)

/**
 * The slug a request's `Host` header names (`shop.localhost:7443` → `shop`, case-insensitive),
 * or undefined when the host is not `<one label>.<tld>` (the port, if any, is not checked).
 */
export const slugFromHost = (host: string, tld: string): string | undefined => {
  const name = host.replace(/:\d*$/, "").replace(/\.$/, "").toLowerCase()
  const suffix = `.${tld.toLowerCase()}`
  if (!name.endsWith(suffix)) return undefined
  const label = name.slice(0, -suffix.length)
  return /^[a-z0-9_-]+$/.test(label) ? label : undefined
}
