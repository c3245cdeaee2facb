import * as fs from "node:fs"

const TCP_LISTEN = "0A"
/** `::1` as /proc/net/tcp6 writes it (four little-endian 32-bit words). */
const IPV6_LOOPBACK = "00000000000000000000000001000000"

/** The local addresses (hex, as the kernel writes them) of the LISTEN rows on `port` in a /proc/net/tcp* text. */
export const listeningAddresses = (text: string, port: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/)
    const local = fields[1]
    if (fields[3] !== TCP_LISTEN || local === undefined) continue
    const colon = local.lastIndexOf(":")
    if (Number.parseInt(local.slice(colon + 1), 16) === port) out.push(local.slice(0, colon))
  }
  return out
}

const read = (path: string) => {
  try {
    return fs.readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

/**
 * The loopback address a daemon's port answers on: 127.0.0.1, unless the port listens on IPv6's
 * `::1` alone (a dev server bound to `localhost` may pick either).
 */
export const loopbackFor = (port: number): string => {
  if (listeningAddresses(read("/proc/net/tcp"), port).length > 0) return "127.0.0.1"
  const v6 = listeningAddresses(read("/proc/net/tcp6"), port)
  return v6.length > 0 && v6.every((a) => a === IPV6_LOOPBACK) ? "::1" : "127.0.0.1"
}
