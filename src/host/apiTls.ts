// HTTPS for the API listener (`settings.api.tls`): a certificate signed by the supervisor's local
// CA (the proxy's, `<state dir>/proxy/ca.pem`), naming the bind address and this host, so that a
// remote CLI given that CA file (`--ca`) verifies it.
import * as os from "node:os"
import { Effect } from "effect"
import { ListenError } from "./tcp.js"

export interface ListenerTls {
  readonly key: string
  readonly cert: string
  /** The CA certificate clients verify it with (what `--ca` takes). */
  readonly caFile: string
  /** What to say in the supervisor log about the CA (created, replaced), if anything. */
  readonly note: string | undefined
}

const isWildcard = (address: string) => address === "0.0.0.0" || address === "::"

/**
 * The names the certificate of a listener on `address` carries: the address itself (every
 * address of this host for a wildcard bind), the host name, and the loopback names.
 */
export const certificateNames = (address: string): ReadonlyArray<string> => {
  const names = new Set<string>()
  if (isWildcard(address)) {
    for (const list of Object.values(os.networkInterfaces()))
      for (const i of list ?? []) names.add(i.address.replace(/%.*$/, ""))
  } else names.add(address)
  names.add(os.hostname())
  for (const n of ["localhost", "127.0.0.1", "::1"]) names.add(n)
  return [...names].filter((n) => n !== "")
}

/**
 * The key and certificate of a TLS listener on `address`, from the local CA of `stateDir`. The CA
 * code (and node-forge) is loaded here, when a listener asks for TLS, not at every start.
 */
export const listenerTls = (stateDir: string, address: string): Effect.Effect<ListenerTls, ListenError> =>
  Effect.tryPromise({
    try: async () => {
      const { caNote, caPaths, loadOrCreateCa } = await import("../proxy/tls/ca.js")
      const { newLeafKey, signServerCert } = await import("../proxy/tls/leaf.js")
      const ca = loadOrCreateCa(stateDir)
      const key = newLeafKey()
      return {
        key: key.pem,
        cert: signServerCert(ca, key, certificateNames(address)),
        caFile: caPaths(stateDir).cert,
        note: caNote(ca),
      }
    },
    catch: (e) =>
      new ListenError({
        message: `cannot serve the API over HTTPS (settings.api.tls): ${e instanceof Error ? e.message : String(e)}`,
      }),
  })
