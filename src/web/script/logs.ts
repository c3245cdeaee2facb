/** The log panel: a live tail of one daemon, and a filter (text or regex) over its lines. */
export const LOGS = `
const MAX_LOG_LINES = 2000;
let logId = null;
let logAbort = null;
/** The filter's test of a line's message; null shows every line. */
let logMatch = null;

function closeLogs() {
  if (logAbort) logAbort.abort();
  logAbort = null;
  logId = null;
  $("logs").hidden = true;
  $("log-lines").replaceChildren();
  updateLogCount();
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
  const url = "api/logs/" + encodeURIComponent(id) + "/tail?lines=" + LOG_LINES;
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
    const message = typeof item.message === "string" ? item.message : "";
    const line = el("div", { className: level ? "log-line lvl-" + level : "log-line" },
      el("span", { className: "ts", textContent: item.timestamp || "" }),
      level ? el("span", { className: "lvl lvl-" + level, textContent: level }) : "",
      el("span", { className: "msg", textContent: message }),
    );
    line.hidden = logMatch !== null && !logMatch(message);
    box.append(line);
  }
  while (box.childElementCount > MAX_LOG_LINES) box.firstElementChild.remove();
  updateLogCount();
  if (atBottom) box.scrollTop = box.scrollHeight;
}

/**
 * Reads the filter's fields into \`logMatch\`, as \`logs --grep\` (text) or \`--regex\` does, both
 * case-insensitive unless "match case" is ticked. An invalid regex filters nothing out and
 * says why. Then filters the lines already shown.
 */
function compileLogFilter() {
  const input = $("log-filter");
  const text = input.value;
  const exact = $("log-case").checked;
  let problem = "";
  logMatch = null;
  if (text !== "" && $("log-regex").checked) {
    try {
      const re = new RegExp(text, exact ? "" : "i");
      logMatch = (m) => re.test(m);
    } catch (e) {
      problem = "Invalid regex, nothing is filtered out: " + e.message;
    }
  } else if (text !== "") {
    const needle = exact ? text : text.toLowerCase();
    logMatch = exact ? (m) => m.includes(needle) : (m) => m.toLowerCase().includes(needle);
  }
  $("log-filter-error").textContent = problem;
  $("log-filter-error").hidden = !problem;
  input.setAttribute("aria-invalid", problem ? "true" : "false");
  for (const line of $("log-lines").children) {
    const message = line.querySelector(".msg").textContent;
    line.hidden = logMatch !== null && !logMatch(message);
  }
  updateLogCount();
}

/** "12 of 340 lines" while a filter hides some; empty otherwise. */
function updateLogCount() {
  const box = $("log-lines");
  const all = box.childElementCount;
  let shown = 0;
  if (logMatch !== null) for (const line of box.children) if (!line.hidden) shown++;
  $("log-count").textContent = logMatch === null ? "" : shown + " of " + all + " lines";
}

for (const id of ["log-filter", "log-regex", "log-case"]) $(id).addEventListener("input", compileLogFilter);
`
