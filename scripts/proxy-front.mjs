// Builds dist/proxy-front, the proxy's native front (src/proxy/native/front.c), with
// scripts/c-program.mjs. Not built: the proxy's worker listens and relays plain HTTP itself.
import { buildCProgram } from "./c-program.mjs"

export const buildProxyFront = () =>
  buildCProgram("src/proxy/native/front.c", "dist/proxy-front", {
    without: "the proxy's worker relays plain HTTP itself",
  })
