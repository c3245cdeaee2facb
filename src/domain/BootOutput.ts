import { Schema } from "effect"

// `supervisor boot status|enable|disable --json` (src/boot/boot.ts): printed through these.

/** `boot status`: the boot file, whether it is in force, and what it runs. */
export const BootState = Schema.Struct({
  /** `systemd` (Linux) or `launchd` (macOS). */
  manager: Schema.Literal("systemd", "launchd"),
  /** A user unit or agent, or (systemd, as root) a system unit. */
  scope: Schema.Literal("user", "system"),
  file: Schema.String,
  /** The `*.target.wants` link (systemd); null for launchd. */
  link: Schema.NullOr(Schema.String),
  /** The file exists. */
  written: Schema.Boolean,
  /** The file exists and (systemd) is linked: the supervisor starts at boot or login. */
  enabled: Schema.Boolean,
  /** The Node and the CLI the file runs (null when there is no file). */
  node: Schema.NullOr(Schema.String),
  cli: Schema.NullOr(Schema.String),
  /**
   * The file, or the link, when it is another program's (without the mark `enable` writes): never
   * written over or removed.
   */
  foreign: Schema.Array(Schema.String),
  /**
   * Why the file does not run this CLI (a path that is gone or another one), or has the old name
   * supervisor.service; empty when neither.
   */
  stale: Schema.Array(Schema.String),
}).annotations({ identifier: "BootState" })
export type BootState = typeof BootState.Type

/** `systemctl daemon-reload` after a change: whether it ran and how it ended. */
export const SystemctlRun = Schema.Struct({
  /** False when systemctl is not on PATH (or not needed: launchd, nothing changed). */
  ran: Schema.Boolean,
  ok: Schema.Boolean,
  /** The command that finishes the change; null when none is needed. */
  command: Schema.NullOr(Schema.String),
  output: Schema.String,
}).annotations({ identifier: "SystemctlRun" })
export type SystemctlRun = typeof SystemctlRun.Type

/** `boot enable` and `boot disable`: the state after, and what changed. */
export const BootChange = Schema.extend(
  BootState,
  Schema.Struct({
    action: Schema.Literal("enable", "disable"),
    /** A file was written with other content, or removed. */
    changed: Schema.Boolean,
    /** `enable`: why the file that was there was rewritten (its stale paths). */
    rewritten: Schema.Array(Schema.String),
    /** `disable`: the files removed; `enable`: those of our unit under the old name, replaced. */
    removed: Schema.Array(Schema.String),
    daemon_reload: SystemctlRun,
    /** What is left to do by hand, or how to start it now; null when nothing. */
    next_step: Schema.NullOr(Schema.String),
  }),
).annotations({ identifier: "BootChange" })
export type BootChange = typeof BootChange.Type
