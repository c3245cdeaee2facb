/**
 * xterm.js and its style sheet, which the web page loads when its terminal pane first opens
 * (`assets/xterm.js`, `assets/xterm.css`). Read from the installed @xterm/xterm here; the build
 * (scripts/build.mjs) replaces this module with dist/xterm.cjs, which holds both texts, so that
 * the supervisor needs no node_modules and loads them only when the page first asks.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"

const read = (path: string) => readFileSync(createRequire(import.meta.url).resolve(path), "utf8")

/** The script, without its source map comment (the map is not served). */
export const XTERM_JS: string = read("@xterm/xterm/lib/xterm.js").replace(
  /\n\/\/# sourceMappingURL=.*\s*$/,
  "\n",
)
export const XTERM_CSS: string = read("@xterm/xterm/css/xterm.css")
