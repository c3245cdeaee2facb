import { controlActions } from "../../api/routes.js"
import { actionCommand, actionFailure } from "../../domain/daemonAction.js"
import { visibleActions } from "../actions.js"

/** The daemon table: rows updated in place, the actions that match each status, the keyboard cursor. */
export const TABLE = `
const ACTIONS = ${JSON.stringify(controlActions())};
const visibleActions = ${visibleActions.toString()};
const actionCommand = ${actionCommand.toString()};
const actionFailure = ${actionFailure.toString()};

/** The rows on screen by qualified ID, updated in place so buttons keep focus and hover. */
const rows = new Map();
/** The row the keyboard works on (j/k), by ID; null when none. */
let cursorId = null;

function renderDaemons(list) {
  const body = $("daemons");
  const seen = new Set();
  let before = null;
  for (const d of list) {
    const id = d.id.qualified;
    seen.add(id);
    let row = rows.get(id);
    if (!row) {
      row = makeRow(id);
      rows.set(id, row);
    }
    fillRow(row, d);
    // keeps the API's order, moving only a row that is out of place (a move re-lays the table out)
    const want = before === null ? body.firstChild : before.nextSibling;
    if (row.tr !== want) body.insertBefore(row.tr, want);
    before = row.tr;
  }
  for (const [id, row] of rows) {
    if (!seen.has(id)) {
      row.tr.remove();
      rows.delete(id);
    }
  }
  if (cursorId !== null && !rows.has(cursorId)) cursorId = null;
  $("empty").hidden = list.length > 0;
}

function makeRow(id) {
  // each cell names its column: the narrow layout (src/web/styleNarrow.ts) shows it as a label
  const cell = (className, label) => {
    // roles said outright: the rows are laid out as grids, not as table rows (src/web/style.ts)
    const td = el("td", { className: className || "", role: "cell" });
    if (label) td.dataset.label = label;
    return td;
  };
  const row = {
    id,
    tr: el("tr", { role: "row" }),
    idCell: cell(),
    title: el("div", { className: "sub" }),
    proxy: el("a", { className: "sub proxy-link", target: "_blank", rel: "noopener noreferrer" }),
    slug: el("div", { className: "sub slug-note" }),
    status: el("span", { className: "status" }),
    statusNote: el("div", { className: "sub" }),
    nextRun: el("div", { className: "sub next-run" }),
    statusCell: cell("", "Status"),
    pid: cell("num pid", "PID"),
    uptime: cell("num uptime", "Uptime"),
    ports: cell("", "Ports"),
    cpu: cell("num usage cpu", "CPU"),
    cpuVal: el("span", { className: "val" }),
    cpuSpark: makeSpark("cpu"),
    memory: cell("num usage memory", "Memory"),
    memVal: el("span", { className: "val" }),
    memSpark: makeSpark("memory"),
    actions: cell("actions"),
    buttons: {},
    result: el("div", { className: "result", role: "status" }),
  };
  row.tr.dataset.id = id;
  const link = el("button", { type: "button", className: "idlink", textContent: id, title: "Show logs (l)" });
  link.addEventListener("click", () => {
    moveCursor(id);
    openLogs(id);
  });
  row.idCell.append(link, row.title, row.proxy, row.slug);
  row.statusCell.append(row.status, row.statusNote, row.nextRun);
  row.cpu.append(row.cpuVal, row.cpuSpark);
  row.memory.append(row.memVal, row.memSpark);
  for (const action of ACTIONS) {
    const b = el("button", { type: "button", textContent: action[0].toUpperCase() + action.slice(1) });
    b.dataset.action = action;
    b.addEventListener("click", () => control(row, action));
    row.buttons[action] = b;
    row.actions.append(b);
  }
  // not a command: opens the terminal pane (./terminal.ts) on the daemon's pseudo-terminal
  row.terminal = el("button", { type: "button", textContent: "Terminal", title: "Attach to its terminal (t)" });
  row.terminal.dataset.action = "terminal";
  row.terminal.addEventListener("click", () => {
    moveCursor(id);
    openTerminal(id);
  });
  row.actions.append(row.terminal, row.result);
  row.tr.append(row.idCell, row.statusCell, row.pid, row.uptime, row.ports, row.cpu, row.memory, row.actions);
  return row;
}

function fillRow(row, d) {
  const running = d.pid !== null;
  setText(row.title, d.title && d.title !== d.id.name ? d.title : "");
  // its address through the reverse proxy (null while the proxy is off or it has no slug)
  setText(row.proxy, d.proxy_url || "");
  if (d.proxy_url) row.proxy.href = d.proxy_url;
  else row.proxy.removeAttribute("href");
  row.proxy.hidden = !d.proxy_url;
  setText(row.slug, d.slug && !d.proxy_url ? "slug " + d.slug + " (the proxy is off)" : "");
  row.slug.hidden = !(d.slug && !d.proxy_url);
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
  setText(row.cpuVal, running ? d.cpu_percent.toFixed(1) + " %" : "–");
  setText(row.memVal, running ? humanBytes(d.memory_bytes) : "–");
  fillSparks(row, running);
  renderPorts(row.ports, d.resolved_port, d.active_port);
  row.visible = visibleActions(d);
  for (const action of ACTIONS) {
    const b = row.buttons[action];
    b.hidden = !row.visible.includes(action);
    b.disabled = Boolean(row.busy);
  }
  row.terminal.hidden = !attachable(d);
  row.tr.classList.toggle("selected", logId === row.id);
  row.tr.classList.toggle("cursor", cursorId === row.id);
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
    // a command of the protocol (docs/api.md, "Commands"), as the CLI and the dashboard send theirs
    const res = await fetch("api/commands", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(actionCommand(action, row.id, "web")),
    });
    if (res.status === 401) return showLogin();
    if (!res.ok) error = await problemText(res);
    else error = actionFailure(row.id, await res.json());
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

/** Puts the keyboard cursor on the row of \`id\` (null: none) and scrolls it into view. */
function moveCursor(id) {
  cursorId = id;
  for (const row of rows.values()) row.tr.classList.toggle("cursor", row.id === id);
  const row = id === null ? undefined : rows.get(id);
  if (row) row.tr.scrollIntoView({ block: "nearest" });
}
`
