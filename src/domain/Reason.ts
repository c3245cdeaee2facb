import { Schema } from "effect"

/**
 * Who or what asked for a change in a daemon's life: a person (`cli`, `api`, `web`, `tui` the
 * dashboard, `mcp`), the supervisor's own automation (`watch`, `cron`, `limit`, `boot`, `shell`,
 * `proxy`, `dependency`: a dependency with `restart_dependents` restarted), or its shutdown.
 * Each start, stop, restart and kill carries one; docs/states.md says what each changes.
 */
export const Reason = Schema.Literal(
  "cli",
  "api",
  "web",
  "tui",
  "mcp",
  "watch",
  "cron",
  "limit",
  "boot",
  "shell",
  "proxy",
  "dependency",
  "shutdown",
)
export type Reason = typeof Reason.Type
