/** The keyboard shortcuts (docs/web.md): rows, actions, logs, the terminal, the filter and the `?` list. */
export const KEYS = `
const help = $("help");
$("help-open").addEventListener("click", () => help.showModal());

/** True while the user types in a field: no shortcut fires then. */
function typing(target) {
  return target instanceof Element &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

/** The row \`by\` rows after the cursor (the first or last one when there is none). */
function stepCursor(by) {
  const ids = [...rows.keys()];
  if (ids.length === 0) return;
  const at = ids.indexOf(cursorId);
  const next = at < 0 ? (by > 0 ? 0 : ids.length - 1) : Math.min(ids.length - 1, Math.max(0, at + by));
  moveCursor(ids[next]);
}

/** Runs \`action\` on the selected row when the page shows its button (so it applies). */
function cursorAction(action) {
  const row = cursorId === null ? undefined : rows.get(cursorId);
  if (row && !row.busy && row.visible.includes(action)) control(row, action);
}

const KEY_ACTIONS = { s: "start", x: "stop", r: "restart", e: "enable", d: "disable" };

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  // every key typed in the terminal pane is the daemon's, Esc included
  if (event.target instanceof Element && event.target.closest("#term-screen")) return;
  const key = event.key;
  if (key === "Escape") {
    if (help.open) return; // the dialog closes itself
    if (typing(event.target)) event.target.blur();
    else if (!$("logs").hidden) closeLogs();
    return;
  }
  if (typing(event.target) || help.open || $("app").hidden) return;
  if (key === "?") help.showModal();
  else if (key === "j" || key === "ArrowDown") stepCursor(1);
  else if (key === "k" || key === "ArrowUp") stepCursor(-1);
  else if (KEY_ACTIONS[key]) cursorAction(KEY_ACTIONS[key]);
  else if (key === "l") {
    if (cursorId !== null) openLogs(cursorId);
  } else if (key === "t") {
    const row = cursorId === null ? undefined : rows.get(cursorId);
    if (row && !row.terminal.hidden) openTerminal(row.id);
  } else if (key === "/") {
    if ($("logs").hidden && cursorId !== null) openLogs(cursorId);
    if (!$("logs").hidden) $("log-filter").focus();
  } else return;
  event.preventDefault();
});
`
