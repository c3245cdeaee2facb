// The proxy address of each daemon a start made ready (`proxy_url` of a Ready outcome), which
// `supervisor start` prints as pitchfork does (`↳ shop/web https://shop.localhost:7443`).
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { proxyUrlOf } from "../domain/proxyUrl.js"
import type { StartEvent } from "../domain/StartEvent.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { hostLabelOf } from "../domain/slugs.js"
import type { ProxyView } from "./proxyView.js"

/** `outcome` with the daemon's proxy address when it is ready and a slug names it. */
export const withProxyUrl = (
  outcome: StartOutcome,
  defs: ReadonlyArray<DaemonDefinition>,
  view: ProxyView,
): StartOutcome => {
  if (outcome._tag !== "Ready") return outcome
  const def = defs.find((d) => d.id.qualified === outcome.id)
  const url = def === undefined ? null : proxyUrlOf(hostLabelOf(def, view.slugs), view.proxy)
  return url === null ? outcome : { ...outcome, proxy_url: url }
}

/** The same for the outcomes an event carries. */
export const eventWithProxyUrls = (
  event: StartEvent,
  defs: ReadonlyArray<DaemonDefinition>,
  view: ProxyView,
): StartEvent =>
  "outcome" in event
    ? { ...event, outcome: withProxyUrl(event.outcome, defs, view) }
    : "outcomes" in event
      ? { ...event, outcomes: event.outcomes.map((o) => withProxyUrl(o, defs, view)) }
      : event
