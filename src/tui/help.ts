import { Box, Text } from "ink"
import { createElement as h } from "react"
import type { Mode } from "./keys.js"

/** Every key, as `?` shows them (docs/tui.md has the same list). */
export const KEYS: ReadonlyArray<readonly [string, string]> = [
  ["↑ ↓  j k", "select the previous / next daemon"],
  ["PgUp PgDn", "a page up / down"],
  ["Home End  g G", "the first / last daemon"],
  ["s", "start the selected daemon"],
  ["x  S", "stop it"],
  ["r", "restart it"],
  ["e", "enable it"],
  ["d", "disable it"],
  ["a", "attach to it (pty = true): its terminal, full-screen; Ctrl-] comes back"],
  ["/", "filter by ID or status: type, Enter keeps it, Esc clears it"],
  ["Enter  l", "show / hide the log pane (it follows the selected daemon)"],
  ["Esc", "clear the filter"],
  ["?", "this help (any key closes it)"],
  ["q  Ctrl-C", "quit"],
]

/** The bottom line: the main keys, or the filter being typed. */
export const helpLine = (mode: Mode, filter: string): string =>
  mode === "filter"
    ? `filter: ${filter}█   Enter keep · Esc clear`
    : mode === "help"
      ? "any key: back · q quit"
      : "↑↓ select  s start  x stop  r restart  e enable  d disable  / filter  l log  ? help  q quit"

/** The full key list (`?`). */
export const HelpScreen = ({ height }: { readonly height: number }) =>
  h(
    Box,
    { flexDirection: "column", height },
    h(Text, { bold: true }, "Keys"),
    ...KEYS.map(([keys, what]) => h(Text, { key: keys }, `  ${keys.padEnd(16)}${what}`)),
  )
