import { Box, Text } from "ink"
import { createElement as h } from "react"
import type { Mode } from "./keys.js"

/** Every key, as `?` shows them (docs/tui.md has the same list). */
export const KEYS: ReadonlyArray<readonly [string, string]> = [
  ["↑ ↓  j k", "select the previous / next daemon"],
  ["PgUp PgDn", "a page up / down"],
  ["Home End  g G", "the first / last daemon"],
  ["Space", "mark / unmark the selected daemon (the keys below then act on the marked ones)"],
  ["Ctrl-A", "mark every daemon shown (all the filter's matches)"],
  ["c", "clear the marks"],
  ["s", "start the selected daemon (or the marked ones: so do x r e d)"],
  ["x  S", "stop it"],
  ["r", "restart it"],
  ["e", "enable it"],
  ["d", "disable it"],
  ["a", "attach to it (pty = true): its terminal, full-screen; Ctrl-] comes back"],
  ["t", "the selected daemon's dependencies, as `supervisor graph` draws them"],
  ["/", "filter: a fuzzy match of the ID (namespace/name) or the status; Enter keeps it, Esc clears it"],
  ["Enter  l", "show / hide the log pane (it follows the selected daemon)"],
  ["Esc", "clear the filter"],
  ["?", "this help (any key closes it)"],
  ["q  Ctrl-C", "quit"],
]

/** The bottom line: the main keys, or the filter being typed. */
export const helpLine = (mode: Mode, filter: string): string =>
  mode === "filter"
    ? `filter: ${filter}█   Enter keep · Esc clear`
    : mode === "help" || mode === "graph"
      ? "any key: back · q quit"
      : "␣ mark  t deps  s start  x stop  r restart  e enable  d disable  / filter  l log  ? help  q quit"

/** The full key list (`?`). */
export const HelpScreen = ({ height }: { readonly height: number }) =>
  h(
    Box,
    { flexDirection: "column", height },
    h(Text, { bold: true }, "Keys"),
    ...KEYS.map(([keys, what]) => h(Text, { key: keys }, `  ${keys.padEnd(16)}${what}`)),
  )
