/**
 * The web UI: one self-contained HTML document (inline CSS and script, no external resources),
 * served by `GET /` of the web listener (or its `web.base_path`). It talks to the same origin
 * only, by paths relative to its own (so that it works under a base path): `login` and `logout`
 * for the session cookie, `api/...` for the daemons, stats and log streams.
 *
 * The document is the same for everyone and carries no secret: before a session exists it
 * asks for the token (or the one-time link of `supervisor web`).
 *
 * The script inserts every value from the API with `textContent` (never as HTML).
 */

import { controlActions } from "../api/routes.js"
import { STYLE } from "./style.js"

const BODY = `
<header>
  <h1>supervisor</h1>
  <span id="stats"></span>
  <button id="logout" type="button" hidden>Log out</button>
</header>
<main>
  <div id="banner" hidden></div>

  <section id="login" class="card" hidden>
    <h2>Log in</h2>
    <p>Paste the API token (<code>supervisor supervisor token</code> prints it) or open the link
      <code>supervisor web</code> prints.</p>
    <form id="login-form">
      <input id="token" type="password" autocomplete="off" placeholder="API token" aria-label="API token" required>
      <button class="primary" type="submit">Log in</button>
    </form>
    <p id="login-error" class="error" role="alert"></p>
  </section>

  <section id="app" hidden>
    <div class="card">
      <table>
        <thead><tr>
          <th>ID</th><th>Status</th><th>PID</th><th>Uptime</th><th>Ports</th>
          <th>CPU</th><th>Memory</th><th>Actions</th>
        </tr></thead>
        <tbody id="daemons"></tbody>
      </table>
      <div id="empty" class="empty" hidden>No daemons yet: run <code>supervisor start</code> in a project.</div>
    </div>

    <section id="logs" class="card" hidden>
      <div class="bar">
        <span id="log-title"></span>
        <span id="log-state"></span>
        <button id="log-close" type="button">Close</button>
      </div>
      <div id="log-lines"></div>
    </section>
  </section>
</main>
`

// Plain browser JavaScript. Written without template literals so it can live in this TS one.
const SCRIPT = `
"use strict";
const REFRESH_MS = 2000;
const MAX_LOG_LINES = 2000;
const ACTIONS = ${JSON.stringify(controlActions())};
const $ = (id) => document.getElementById(id);

/** An element with properties (textContent, className, ...) and children (nodes or text). */
function el(tag, props, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
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
  clearTimeout(refreshTimer);
  closeLogs();
  rows.clear();
  $("daemons").replaceChildren();
  $("stats").textContent = "";
  $("app").hidden = true;
  $("logout").hidden = true;
  $("banner").hidden = true;
  $("login").hidden = false;
  $("token").focus();
}

function showApp() {
  $("login").hidden = true;
  $("app").hidden = false;
  $("logout").hidden = false;
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

// ---- daemon table ------------------------------------------------------------------------

/** The rows on screen by qualified ID, updated in place so buttons keep focus and hover. */
const rows = new Map();
let refreshTimer;
let refreshSeq = 0;

/** Fetches the list and the stats now, then every REFRESH_MS while logged in. */
async function refreshNow() {
  clearTimeout(refreshTimer);
  const seq = ++refreshSeq;
  const get = (path) => fetch(path, { cache: "no-store", signal: AbortSignal.timeout(10000) });
  try {
    const [list, stats] = await Promise.all([get("api/daemons"), get("api/stats")]);
    if (seq !== refreshSeq) return;
    if (list.status === 401) return showLogin();
    showApp();
    if (!list.ok) showBanner("cannot list the daemons: " + (await problemText(list)));
    else {
      renderDaemons(await list.json());
      showBanner("");
    }
    if (stats.ok) renderStats(await stats.json());
  } catch (e) {
    if (seq !== refreshSeq) return;
    showBanner("cannot reach the supervisor: " + e.message);
  }
  // keep polling (also through errors) unless the login form is up
  if (seq === refreshSeq && $("login").hidden) refreshTimer = setTimeout(refreshNow, REFRESH_MS);
}

function renderStats(s) {
  $("stats").textContent =
    s.process_count + " processes · " + s.cpu_count + " CPUs · " + humanBytes(s.total_memory) + " memory";
}

function renderDaemons(list) {
  const body = $("daemons");
  const seen = new Set();
  for (const d of list) {
    const id = d.id.qualified;
    seen.add(id);
    let row = rows.get(id);
    if (!row) {
      row = makeRow(id);
      rows.set(id, row);
    }
    fillRow(row, d);
    body.append(row.tr); // keeps the API's order; moving an existing node is cheap
  }
  for (const [id, row] of rows) {
    if (!seen.has(id)) {
      row.tr.remove();
      rows.delete(id);
    }
  }
  $("empty").hidden = list.length > 0;
}

function makeRow(id) {
  const cell = (className) => el("td", { className: className || "" });
  const row = {
    id,
    tr: el("tr"),
    idCell: cell(),
    title: el("div", { className: "sub" }),
    proxy: el("a", { className: "sub proxy-link", target: "_blank", rel: "noopener" }),
    status: el("span", { className: "status" }),
    statusNote: el("div", { className: "sub" }),
    nextRun: el("div", { className: "sub next-run" }),
    statusCell: cell(),
    pid: cell("num"),
    uptime: cell("num"),
    ports: cell(),
    cpu: cell("num"),
    memory: cell("num"),
    actions: cell("actions"),
    buttons: {},
    result: el("div", { className: "result", role: "status" }),
  };
  row.tr.dataset.id = id;
  const link = el("button", { type: "button", className: "idlink", textContent: id, title: "Show logs" });
  link.addEventListener("click", () => openLogs(id));
  row.idCell.append(link, row.title, row.proxy);
  row.statusCell.append(row.status, row.statusNote, row.nextRun);
  for (const action of ACTIONS) {
    const b = el("button", { type: "button", textContent: action[0].toUpperCase() + action.slice(1) });
    b.dataset.action = action;
    b.addEventListener("click", () => control(row, action));
    row.buttons[action] = b;
    row.actions.append(b);
  }
  row.actions.append(row.result);
  row.tr.append(row.idCell, row.statusCell, row.pid, row.uptime, row.ports, row.cpu, row.memory, row.actions);
  return row;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function fillRow(row, d) {
  const running = d.pid !== null;
  setText(row.title, d.title && d.title !== d.id.name ? d.title : "");
  // its address through the reverse proxy (null while the proxy is off or it has no slug)
  setText(row.proxy, d.proxy_url || "");
  if (d.proxy_url) row.proxy.href = d.proxy_url;
  else row.proxy.removeAttribute("href");
  row.proxy.hidden = !d.proxy_url;
  const s = d.status;
  setText(row.status, s.type);
  row.status.className = "status " + s.type;
  const detail = [s.message, s.exit_code != null ? "exit code " + s.exit_code : "", s.signal || ""]
    .filter(Boolean)
    .join(" · ");
  row.status.title = detail;
  setText(row.statusNote, s.message || "");
  setText(row.nextRun, d.next_run ? nextRunText(d.next_run) : "");
  row.nextRun.title = d.next_run || "";
  setText(row.pid, running ? String(d.pid) : "–");
  setText(row.uptime, running ? humanDuration(d.uptime_secs) : "–");
  setText(row.cpu, running ? d.cpu_percent.toFixed(1) + " %" : "–");
  setText(row.memory, running ? humanBytes(d.memory_bytes) : "–");
  renderPorts(row.ports, d.resolved_port, d.active_port);
  row.buttons.enable.disabled = row.busy || d.enabled;
  row.buttons.disable.disabled = row.busy || !d.enabled;
  row.tr.classList.toggle("selected", logId === row.id);
}

function renderPorts(cell, resolved, active) {
  const ports = resolved.slice();
  if (active !== null && !ports.includes(active)) ports.push(active);
  const key = ports.join(",") + "|" + active;
  if (cell.dataset.key === key) return;
  cell.dataset.key = key;
  cell.replaceChildren(
    ...ports.map((p) =>
      el("span", {
        className: p === active ? "port active" : "port",
        textContent: p === active ? p + " ●" : String(p),
        title: p === active ? "listening" : "resolved",
      }),
    ),
  );
  if (ports.length === 0) cell.textContent = "–";
}

async function control(row, action) {
  row.busy = true;
  for (const b of Object.values(row.buttons)) b.disabled = true;
  row.result.className = "result";
  row.result.textContent = action + "…";
  let error = "";
  try {
    const res = await fetch("api/daemons/" + encodeURIComponent(row.id) + "/" + action, { method: "POST" });
    if (res.status === 401) return showLogin();
    if (!res.ok) error = await problemText(res);
    else {
      const result = await res.json();
      if (!result.ok) error = result.error || action + " failed";
    }
  } catch (e) {
    error = "cannot reach the supervisor: " + e.message;
  } finally {
    row.busy = false;
    for (const b of Object.values(row.buttons)) b.disabled = false;
  }
  row.result.className = error ? "result error" : "result";
  row.result.textContent = error;
  refreshNow();
}

// ---- log panel ---------------------------------------------------------------------------

let logId = null;
let logAbort = null;

function closeLogs() {
  if (logAbort) logAbort.abort();
  logAbort = null;
  logId = null;
  $("logs").hidden = true;
  $("log-lines").replaceChildren();
  for (const row of rows.values()) row.tr.classList.remove("selected");
}

$("log-close").addEventListener("click", closeLogs);

async function openLogs(id) {
  closeLogs();
  const abort = new AbortController();
  logAbort = abort;
  logId = id;
  for (const row of rows.values()) row.tr.classList.toggle("selected", row.id === id);
  $("log-title").textContent = id;
  $("log-state").textContent = "waiting for lines…"; // the stream may only start with the first line
  $("logs").hidden = false;
  const url = "api/logs/" + encodeURIComponent(id) + "/tail?lines=100";
  try {
    const res = await fetch(url, { signal: abort.signal, cache: "no-store" });
    if (res.status === 401) return showLogin();
    if (!res.ok) {
      $("log-state").textContent = await problemText(res);
      return;
    }
    $("log-state").textContent = "live";
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let pending = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (abort.signal.aborted) return;
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = pending.split("\\n");
      pending = done ? "" : lines.pop();
      appendLogLines(lines.filter((l) => l.trim() !== "").map(parseLogLine));
      if (done) break;
    }
    $("log-state").textContent = "stream ended (click the ID to reconnect)";
  } catch (e) {
    if (!abort.signal.aborted) $("log-state").textContent = "stream failed: " + e.message;
  }
}

function parseLogLine(line) {
  try {
    return JSON.parse(line);
  } catch {
    return { message: line };
  }
}

function appendLogLines(items) {
  if (items.length === 0) return;
  const box = $("log-lines");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 8;
  for (const item of items) {
    if (item._clear) {
      box.replaceChildren();
      continue;
    }
    // a structured daemon's lines carry their level (log_format): shown in its colour
    const level = typeof item.level === "string" ? item.level : "";
    box.append(
      el("div", { className: level ? "log-line lvl-" + level : "log-line" },
        el("span", { className: "ts", textContent: item.timestamp || "" }),
        level ? el("span", { className: "lvl lvl-" + level, textContent: level }) : "",
        el("span", { className: "msg", textContent: item.message }),
      ),
    );
  }
  while (box.childElementCount > MAX_LOG_LINES) box.firstElementChild.remove();
  if (atBottom) box.scrollTop = box.scrollHeight;
}

refreshNow();
`

/** The web UI's page: the same document for every request, with no secret in it. */
export const renderPage = (): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>supervisor</title>
<style>${STYLE}</style>
</head>
<body>
${BODY}
<script>${SCRIPT}</script>
</body>
</html>
`
