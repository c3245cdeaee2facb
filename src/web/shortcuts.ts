/** The page's keyboard shortcuts, as its `?` dialog and docs/web.md list them. */
export const SHORTCUTS: ReadonlyArray<readonly [keys: string, what: string]> = [
  ["j  ↓", "select the next daemon"],
  ["k  ↑", "select the previous daemon"],
  ["s", "start the selected daemon"],
  ["x", "stop it"],
  ["r", "restart it"],
  ["e", "enable it"],
  ["d", "disable it"],
  ["l", "show its logs"],
  ["t", "open its terminal (a running daemon with pty = true)"],
  ["/", "filter the log lines"],
  ["?", "show this list"],
  ["Esc", "close this list, leave the filter, or close the logs"],
]

/** The shortcut table's rows, as static HTML (no API value goes in it). */
export const shortcutRows = (): string =>
  SHORTCUTS.map(
    ([keys, what]) =>
      `<tr><td>${keys
        .split(/\s+/)
        .map((k) => `<kbd>${k}</kbd>`)
        .join(" ")}</td><td>${what}</td></tr>`,
  ).join("\n")
