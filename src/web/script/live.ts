import { eventDaemon, PATCH_MOST, patchListing } from "../../domain/liveListing.js"

/**
 * The page follows the supervisor's events (`api/events?usage=true` as Server-Sent Events, with
 * the session cookie like every other request): an event about a daemon (state, readiness,
 * retry, automation) fetches that daemon's entry and patches it in; a configuration event, a gap
 * and every (re)connection fetch the whole list, so nothing between the last list and the stream
 * is missed (src/domain/liveListing.ts); the usage samples update the CPU, memory, port and
 * uptime cells and the sparklines. While the stream is down the page polls (REFRESH_MS) and
 * reconnects.
 */
export const LIVE = `
const STREAM_RETRY_MS = 5000;
const eventDaemon = ${eventDaemon.toString()};
const patchListing = ${patchListing.toString()};
const PATCH_MOST = ${PATCH_MOST};
/** The events that change what the table or the problems banner show; a gap marker too. */
const LIVE_EVENTS = [
  "DaemonStateChanged", "ReadinessPassed", "ReadinessFailed", "RetryScheduled",
  "AutomationAction", "ConfigReloaded", "ConfigInvalid", "EventsDropped",
];
let eventSource = null;
let streamRetry;

/** Marks the page as following the stream or not (body data-stream="live" / "down"). */
function setLive(on) {
  document.body.dataset.stream = on ? "live" : "down";
}

/** Opens the event stream unless it is open (or the browser has no EventSource). */
function followEvents() {
  if (eventSource || typeof EventSource === "undefined") return;
  clearTimeout(streamRetry);
  const source = new EventSource("api/events?usage=true");
  eventSource = source;
  source.addEventListener("open", () => {
    setLive(true);
    historyWanted = true; // what the stream may have missed while down
    refreshSoon();
  });
  for (const type of LIVE_EVENTS)
    source.addEventListener(type, (event) => refreshSoon(eventDaemon(Object.assign({ _tag: type }, JSON.parse(event.data)))));
  source.addEventListener("UsageSampled", (event) => applyUsage(JSON.parse(event.data)));
  source.addEventListener("error", () => {
    // reconnect afresh (no Last-Event-ID: a restarted supervisor counts from 1 again), then re-fetch all
    source.close();
    if (eventSource !== source) return;
    eventSource = null;
    setLive(false);
    if (!$("login").hidden) return;
    streamRetry = setTimeout(followEvents, STREAM_RETRY_MS);
    // poll meanwhile
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refreshNow, REFRESH_MS);
  });
}

/** A usage sample: the running daemons' cells and sparklines (a daemon whose pid changed waits for its list). */
function applyUsage(sample) {
  addUsage(sample);
  if (!lastList) return;
  const byId = new Map(sample.daemons.map((d) => [d.id, d]));
  lastList = lastList.map((e) => {
    const d = byId.get(e.id.qualified);
    if (!d || d.pid !== e.pid) return e;
    return Object.assign({}, e, {
      cpu_percent: d.cpu_percent, memory_bytes: d.memory_bytes, active_port: d.active_port, uptime_secs: d.uptime_secs,
    });
  });
  renderDaemons(lastList);
}

function stopEvents() {
  clearTimeout(streamRetry);
  if (eventSource) eventSource.close();
  eventSource = null;
  setLive(false);
}
`
