// Builds dist/proxy-front, the proxy's native front (src/proxy/native/front*.c), with
// scripts/c-program.mjs: with TLS where OpenSSL's headers are at hand (libssl-dev; linked to the
// system's libssl), else without (static; HTTPS then stays in the worker). Not built at all: the
// proxy's worker listens and relays itself.
import { buildCProgram } from "./c-program.mjs"

const SOURCES = [
  "front.c",
  "frontIo.c",
  "frontRequests.c",
  "frontResponses.c",
  "frontControl.c",
  "frontTls.c",
].map((f) => `src/proxy/native/${f}`)

export const buildProxyFront = () => {
  const withTls = buildCProgram(SOURCES, "dist/proxy-front", {
    flags: ["-DFRONT_TLS"],
    libs: ["-lssl", "-lcrypto"],
    linkings: [[]],
    without: "no TLS",
  })
  if (!withTls.startsWith("not built")) return `${withTls}, with TLS`
  const plain = buildCProgram(SOURCES, "dist/proxy-front", {
    without: "the proxy's worker listens and relays itself",
  })
  return plain.startsWith("not built") ? plain : `${plain}, without TLS (no OpenSSL headers: libssl-dev)`
}
