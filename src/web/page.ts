/**
 * The web UI: one HTML document (inline CSS and script, nothing from elsewhere),
 * served by `GET /` of the web listener (or its `web.base_path`). It talks to the same origin
 * only, by paths relative to its own (so that it works under a base path): `login` and `logout`
 * for the session cookie, `api/...` for the daemons, usage, stats, projects, log streams and
 * the event stream (./script/live.ts).
 *
 * Its icon is `favicon.svg` (src/web/favicon.ts).
 *
 * The document is the same for everyone and carries no secret: before a session exists it
 * asks for the token (or the one-time link of `supervisor web`).
 *
 * Its terminal pane (./script/terminal.ts) loads xterm.js and its style sheet from the listener
 * (`assets/xterm.js`, `assets/xterm.css`) when it first opens.
 *
 * The script inserts every value from the API with `textContent` or as an SVG attribute (never
 * as HTML). Its parts are in ./script/, in the order they run.
 */

import { body } from "./body.js"
import { FAVICON_LINK } from "./favicon.js"
import { BASE } from "./script/base.js"
import { KEYS } from "./script/keys.js"
import { LIVE } from "./script/live.js"
import { LOGS } from "./script/logs.js"
import { SPARKLINE } from "./script/sparkline.js"
import { TABLE } from "./script/table.js"
import { TERMINAL } from "./script/terminal.js"
import { STYLE, STYLE_MORE } from "./style.js"
import { STYLE_NARROW } from "./styleNarrow.js"

// joined at the first request: a supervisor whose page is never asked for does not hold it (~70 kB)
let script: string | undefined
const pageScript = (): string =>
  (script ??= [BASE, LIVE, SPARKLINE, TABLE, LOGS, TERMINAL, KEYS, "\nrefreshNow();\n"].join("\n"))

/**
 * The web UI's page: the same document for every request, with no secret in it. `logLines`
 * (`settings.web.log_lines`): how many of a daemon's last lines its log panel opens with.
 */
export const renderPage = (logLines = 100): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>supervisor</title>
${FAVICON_LINK}
<style>${STYLE}${STYLE_MORE}${STYLE_NARROW}</style>
</head>
<body>
${body()}
<script>const LOG_LINES = ${Math.floor(logLines)};
${pageScript()}</script>
</body>
</html>
`
