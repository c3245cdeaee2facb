import { patchListing } from "../../domain/liveListing.js"

/**
 * The page follows the supervisor's events (`api/events?usage=true&entries=true` as Server-Sent
 * Events, with the session cookie like every other request): each event about a daemon comes
 * with the daemon's entry (`DaemonEntry`), which is put in its row without a request; a
 * configuration event, a gap, an entry of a daemon the page does not show (or one that is gone)
 * and every (re)connection fetch the whole list, so nothing between the last list and the stream
 * is missed (src/domain/liveListing.ts); the usage samples update the CPU, memory, port and
 * uptime cells and the sparklines. While the stream is down the page polls (REFRESH_MS) and
 * reconnects.
 */
export const LIVE = `
const STREAM_RETRY_MS = 5000;
const patchListing = ${patchListing.toString()};
/** The events that need the whole list (a daemon's own come with its entry); a gap marker too. */
const LIVE_EVENTS = ["ConfigReloaded", "ConfigInvalid", "EventsDropped"];
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
  const source = new EventSource("api/events?usage=true&entries=true");
  eventSource = source;
  source.addEventListener("open", () => {
    setLive(true);
    historyWanted = true; // what the stream may have missed while down
    refreshSoon();
  });
  for (const type of LIVE_EVENTS) source.addEventListener(type, () => refreshSoon());
  source.addEventListener("DaemonEntry", (event) => applyEntry(JSON.parse(event.data)));
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

/** A daemon's entry after an event about it: its row, or the whole list when it came or went. */
function applyEntry(item) {
  const patched = lastList && item.entry ? patchListing(lastList, item.entry) : null;
  if (patched === null) return refreshSoon();
  // a list under way may be older than this entry: one more after it
  if (refreshing) refreshAgain = true;
  lastList = patched;
  const row = rows.get(item.id);
  if (row) fillRow(row, patched.find((d) => d.id.qualified === item.id));
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
