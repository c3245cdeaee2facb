/** The web UI's stylesheet (inlined in the page by `renderPage`). */
export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #fff; --fg: #1d232b; --muted: #687386; --line: #e1e5eb;
  --accent: #2f6fde; --ok: #1f8f4e; --warn: #b7791f; --bad: #c53030; --info: #3b82a6;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --panel: #1c2027; --fg: #e3e7ee; --muted: #8d97a8; --line: #2c323c;
    --accent: #6c9cf0; --ok: #4cc38a; --warn: #e0a64a; --bad: #f07070; --info: #6bb3d6;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { display: flex; align-items: center; gap: 16px; padding: 12px 24px;
  background: var(--panel); border-bottom: 1px solid var(--line); }
header h1 { font-size: 17px; margin: 0; }
#stats { color: var(--muted); flex: 1; }
main { padding: 20px 24px; max-width: 1400px; margin: 0 auto; }
[hidden] { display: none !important; }
code { font-family: var(--mono); font-size: 12.5px; background: var(--bg); padding: 1px 4px; border-radius: 4px; }
button { font: inherit; font-size: 12.5px; padding: 3px 9px; border-radius: 6px; cursor: pointer;
  border: 1px solid var(--line); background: var(--panel); color: var(--fg); }
button:hover:not(:disabled) { border-color: var(--accent); }
button:disabled { opacity: .45; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; padding: 6px 14px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; }
#banner { margin-bottom: 12px; padding: 8px 12px; border-radius: 8px; color: var(--bad);
  border: 1px solid var(--bad); background: var(--panel); }
#login { max-width: 520px; margin: 60px auto; padding: 24px; }
#login h2 { margin: 0 0 8px; font-size: 18px; }
#login p { color: var(--muted); margin: 0 0 16px; }
#login form { display: flex; gap: 8px; }
#login input { flex: 1; font: inherit; font-family: var(--mono); padding: 6px 10px; border-radius: 6px;
  border: 1px solid var(--line); background: var(--bg); color: var(--fg); }
.error { color: var(--bad); }
#login .error { margin: 12px 0 0; color: var(--bad); }
table { width: 100%; border-collapse: collapse; }
#app > .card { overflow-x: auto; }
#app > .card > table { min-width: 980px; }
th, td { text-align: left; padding: 8px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
tbody tr:last-child td { border-bottom: none; }
tbody tr.selected { background: color-mix(in srgb, var(--accent) 8%, transparent); }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.idlink { border: none; background: none; padding: 0; font-family: var(--mono); font-size: 13px;
  color: var(--accent); text-align: left; }
.idlink:hover { text-decoration: underline; }
.sub { color: var(--muted); font-size: 12px; margin-top: 2px; max-width: 360px; overflow-wrap: anywhere; }
a.proxy-link { display: block; color: var(--accent); }
.status { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600;
  color: var(--muted); border: 1px solid currentColor; }
.status.running { color: var(--ok); }
.status.waiting, .status.stopping { color: var(--warn); }
.status.errored, .status.failed, .status.unhealthy { color: var(--bad); }
.status.available { color: var(--info); }
.port { font-family: var(--mono); font-size: 12.5px; margin-right: 6px; }
.port.active { color: var(--ok); font-weight: 600; }
.actions { white-space: nowrap; }
td.actions:has(button[data-action="terminal"]:not([hidden])) { white-space: normal; }
.actions button { margin: 0 4px 4px 0; }
.result { font-size: 12px; margin-top: 4px; max-width: 420px; white-space: normal; overflow-wrap: anywhere; }
.empty { padding: 28px; text-align: center; color: var(--muted); }
#logs { margin-top: 20px; overflow: hidden; }
#logs .bar { display: flex; align-items: center; gap: 12px; padding: 8px 12px; border-bottom: 1px solid var(--line); }
#log-title { font-family: var(--mono); font-weight: 600; }
#log-state { color: var(--muted); flex: 1; font-size: 12px; }
#log-lines { height: 380px; overflow: auto; padding: 8px 12px; font-family: var(--mono); font-size: 12.5px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.log-line .ts { color: var(--muted); margin-right: 10px; }
.log-line .lvl { display: inline-block; min-width: 5ch; margin-right: 10px; font-weight: 600; text-transform: uppercase; }
.lvl-trace, .lvl-debug { color: var(--muted); }
.lvl-info { color: var(--info); }
.lvl-warn { color: var(--warn); }
.lvl-error, .lvl-fatal { color: var(--bad); }
.log-line.lvl-fatal .msg { color: var(--bad); font-weight: 600; }
`

/** The parts of the page added for the usage sparklines, log filter, project problems and shortcuts. */
export const STYLE_MORE = `
/* the table's rows are grids of fixed columns, so a row lays out on its own: a changed row does
   not lay the 200 others out again, and a row off screen is neither laid out nor painted
   (content-visibility; its last height is kept for the scroll bar) */
#app > .card > table, #app > .card > table > thead, #daemons { display: block; }
#app > .card > table > thead > tr, #daemons tr { display: grid;
  grid-template-columns: minmax(0, 1fr) 180px 84px 92px 110px 120px 120px 240px; }
#daemons tr { content-visibility: auto; contain-intrinsic-size: auto 60px; }
#daemons td { overflow-wrap: anywhere; }
/* each row a paint layer of its own: a changed row is painted again, not the whole table */
#daemons tr { position: relative; }
td.usage .val { display: block; }
svg.spark { display: block; margin-top: 3px; overflow: visible; }
svg.spark .line { fill: none; stroke-width: 1.4; stroke-linejoin: round; stroke-linecap: round; }
svg.spark .area { stroke: none; opacity: .14; }
svg.spark .track { stroke: var(--line); stroke-width: 1; stroke-dasharray: 2 2; }
svg.spark-cpu .line { stroke: var(--accent); }
svg.spark-cpu .area { fill: var(--accent); }
svg.spark-memory .line { stroke: var(--ok); }
svg.spark-memory .area { fill: var(--ok); }
tbody tr.cursor td:first-child { box-shadow: inset 3px 0 0 var(--accent); }
tbody tr.cursor { background: color-mix(in srgb, var(--accent) 5%, transparent); }
.problems { margin-bottom: 16px; border: 1px solid var(--warn); border-radius: 10px;
  background: color-mix(in srgb, var(--warn) 8%, var(--panel)); padding: 4px 14px; }
.problem { padding: 8px 0; }
.problem + .problem { border-top: 1px solid color-mix(in srgb, var(--warn) 30%, transparent); }
.problem-head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; }
.problem-head strong { color: var(--warn); }
.problem pre { margin: 6px 0 0; font-family: var(--mono); font-size: 12.5px; white-space: pre-wrap;
  overflow-wrap: anywhere; }
#logs .bar { flex-wrap: wrap; }
#log-filter { font: inherit; font-size: 12.5px; font-family: var(--mono); width: 220px; padding: 3px 8px;
  border-radius: 6px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); }
#log-filter[aria-invalid="true"] { border-color: var(--bad); }
label.check { color: var(--muted); font-size: 12px; display: inline-flex; align-items: center; gap: 4px; }
#log-count { color: var(--muted); font-size: 12px; }
#log-filter-error { padding: 6px 12px; font-size: 12.5px; border-bottom: 1px solid var(--line); }
#help-open { border-radius: 999px; width: 26px; height: 26px; padding: 0; font-weight: 600; }
dialog#help { border: 1px solid var(--line); border-radius: 12px; background: var(--panel); color: var(--fg);
  padding: 20px 24px; min-width: 360px; box-shadow: 0 12px 40px rgba(0, 0, 0, .25); }
dialog#help::backdrop { background: rgba(10, 14, 20, .35); }
dialog#help h2 { margin: 0 0 12px; font-size: 16px; }
table.keys td { border: none; padding: 4px 12px 4px 0; }
kbd { font-family: var(--mono); font-size: 12px; padding: 1px 6px; border-radius: 5px;
  border: 1px solid var(--line); border-bottom-width: 2px; background: var(--bg); }
dialog#help form { margin-top: 12px; text-align: right; }
#term { margin-top: 20px; overflow: hidden; }
#term .bar { display: flex; align-items: center; gap: 12px; padding: 8px 12px; border-bottom: 1px solid var(--line); }
#term-title { font-family: var(--mono); font-weight: 600; }
#term-state { color: var(--muted); flex: 1; font-size: 12px; }
#term[data-state="attached"] #term-state { color: var(--ok); }
#term[data-state="exited"] #term-state { color: var(--warn); }
/* the terminal's own colours (xterm's default: light on black); its height can be dragged */
#term-box { background: #000; padding: 6px 8px; height: 440px; min-height: 120px; resize: vertical; overflow: hidden; }
#term-screen { height: 100%; overflow: hidden; }
`
