/**
 * The script's helpers, the login form and the refresh loop (plain browser JavaScript, written
 * without template literals so that it can live in a TS one).
 */
export const BASE = `
"use strict";
/** The poll while the event stream is down (when it is up, it brings the changes and the usage samples). */
const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);

/** An element with properties (textContent, className, ...) and children (nodes or text). */
function el(tag, props, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** A cron daemon's next run in local time: "next run 14:03:00" today, else with its date. */
function nextRunText(iso) {
  const at = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  const time = pad(at.getHours()) + ":" + pad(at.getMinutes()) + ":" + pad(at.getSeconds());
  if (at.toDateString() === new Date().toDateString()) return "next run " + time;
  return "next run " + at.getFullYear() + "-" + pad(at.getMonth() + 1) + "-" + pad(at.getDate()) + " " + time;
}

function humanDuration(secs) {
  if (secs < 60) return secs + "s";
  const m = Math.floor(secs / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
  if (m < 60) return m + "m " + (secs % 60) + "s";
  if (h < 24) return h + "h " + (m % 60) + "m";
  return d + "d " + (h % 24) + "h";
}

function humanBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? String(n) : n.toFixed(1)) + " " + units[i];
}

/** The message of an API error body ({_tag, message}), or the HTTP status. */
async function problemText(res) {
  try {
    const body = await res.json();
    if (body && typeof body.message === "string") return body.message;
  } catch {}
  return "HTTP " + res.status + " " + res.statusText;
}

// ---- views -------------------------------------------------------------------------------

function showLogin() {
  refreshSeq++; // a refresh under way is now stale
  refreshing = false;
  clearTimeout(refreshTimer);
  stopEvents();
  closeLogs();
  closeTerminal();
  rows.clear();
  lastList = null;
  cursorId = null;
  $("daemons").replaceChildren();
  $("stats").textContent = "";
  $("app").hidden = true;
  $("logout").hidden = true;
  $("banner").hidden = true;
  renderProblems([]);
  $("login").hidden = false;
  $("token").focus();
}

function showApp() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("logout").hidden = false;
  followEvents();
}

function showBanner(text) {
  $("banner").textContent = text;
  $("banner").hidden = !text;
}

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-error").textContent = "";
  try {
    const res = await fetch("login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: $("token").value.trim() }),
    });
    if (!res.ok) {
      $("login-error").textContent = await problemText(res);
      return;
    }
    $("token").value = "";
    refreshNow();
  } catch (e) {
    $("login-error").textContent = "cannot reach the supervisor: " + e.message;
  }
});

$("logout").addEventListener("click", async () => {
  try {
    await fetch("logout", { method: "POST" });
  } catch {}
  showLogin();
});

// ---- refresh -----------------------------------------------------------------------------

let refreshTimer;
let refreshSeq = 0;
/** The last list shown: the event stream's usage samples update its cells. */
let lastList = null;
/** A refresh is under way; another was asked for meanwhile (an event): run it once this one ends. */
let refreshing = false;
let refreshAgain = false;

/** The next refresh also fetches the usage history (at a (re)connection or a poll, not for an event). */
let historyWanted = true;

/**
 * A refresh for an event: at once, or right after the one under way (a burst of events makes two).
 * Without the usage history: the stream's samples keep the sparklines.
 */
function refreshSoon() {
  if (refreshing) refreshAgain = true;
  else refreshNow(false);
}

/** Fetches the list, the usage history, the stats and the projects now, then every REFRESH_MS while the stream is down. */
async function refreshNow(withHistory) {
  clearTimeout(refreshTimer);
  if (withHistory !== false) historyWanted = true;
  const seq = ++refreshSeq;
  refreshing = true;
  refreshAgain = false;
  try {
    await refreshOnce(seq);
  } finally {
    if (seq === refreshSeq) refreshing = false;
  }
  if (seq !== refreshSeq || !$("login").hidden) return;
  if (refreshAgain) refreshNow(false);
  // without the stream, keep polling (also through errors)
  else if (document.body.dataset.stream !== "live") refreshTimer = setTimeout(refreshNow, REFRESH_MS);
}

async function refreshOnce(seq) {
  const get = (path) => fetch(path, { cache: "no-store", signal: AbortSignal.timeout(10000) });
  const json = async (res) => (res.ok ? res.json() : null);
  try {
    const withHistory = historyWanted;
    historyWanted = false;
    const [list, usage, stats, projects] = await Promise.all(
      ["api/daemons", withHistory ? "api/usage" : null, "api/stats", "api/namespaces"].map((p) => p && get(p)),
    );
    if (seq !== refreshSeq) return;
    if (list.status === 401) return showLogin();
    showApp();
    const [usageBody, statsBody, projectsBody] = await Promise.all([usage && json(usage), json(stats), json(projects)]);
    if (seq !== refreshSeq) return;
    if (usageBody) setUsage(usageBody);
    if (!list.ok) showBanner("cannot list the daemons: " + (await problemText(list)));
    else {
      lastList = await list.json();
      renderDaemons(lastList);
      showBanner("");
    }
    if (statsBody) renderStats(statsBody);
    if (projectsBody) renderProblems(projectsBody);
  } catch (e) {
    if (seq !== refreshSeq) return;
    showBanner("cannot reach the supervisor: " + e.message);
  }
}

function renderStats(s) {
  $("stats").textContent =
    s.process_count + " processes · " + s.cpu_count + " CPUs · " + humanBytes(s.total_memory) + " memory";
}

/** The known projects whose files are invalid now: their name, directory and problem. */
function renderProblems(list) {
  const bad = list.filter((n) => n.problem !== null);
  const box = $("problems");
  const key = JSON.stringify(bad.map((n) => [n.name, n.dir, n.problem]));
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(
    ...bad.map((n) => {
      const item = el("div", { className: "problem" },
        el("div", { className: "problem-head" },
          el("strong", { textContent: n.name }),
          n.dir ? el("code", { textContent: n.dir }) : "",
          el("span", { className: "sub", textContent: "invalid: its last good configuration stays in force" }),
        ),
        el("pre", { textContent: n.problem }),
      );
      item.dataset.namespace = n.name;
      return item;
    }),
  );
  box.hidden = bad.length === 0;
}
`
