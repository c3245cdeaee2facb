import { Schema } from "effect"
import { DaemonConfig } from "./DaemonConfig.js"
import { DaemonIdObject } from "./DaemonId.js"
import { Settings } from "./Settings.js"
import { Worktree } from "./Worktree.js"

export const LoadedFile = Schema.Struct({
  path: Schema.String,
  level: Schema.Literal("system", "user", "project"),
  namespace: Schema.String,
})

export const ResolvedDaemon = Schema.Struct({
  id: DaemonIdObject,
  config: DaemonConfig,
  /** The last file that set a key of this daemon. */
  source: Schema.String,
  /** Every file that set a key of this daemon, in load order. */
  sources: Schema.Array(Schema.String),
  /** The worktree its project directory is in; absent in a main checkout (docs/worktrees.md). */
  worktree: Schema.optional(Worktree),
}).annotations({ identifier: "ResolvedDaemon" })
export type ResolvedDaemon = typeof ResolvedDaemon.Type

export const ResolvedGroup = Schema.Struct({
  /** Qualified daemon IDs. Members that do not exist are reported when the group is used. */
  daemons: Schema.Array(Schema.String),
  source: Schema.String,
})
export type ResolvedGroup = typeof ResolvedGroup.Type

/** A reverse-proxy slug of the global config: the project directory and the daemon's name there. */
export const ResolvedSlug = Schema.Struct({ dir: Schema.String, daemon: Schema.String })
export type ResolvedSlug = typeof ResolvedSlug.Type

/** The merged, validated configuration seen from one directory. */
export const ResolvedConfig = Schema.Struct({
  cwd: Schema.String,
  /** Namespace of the nearest project config file, used to resolve short IDs. */
  namespace: Schema.optional(Schema.String),
  /** The worktree of the nearest project directory; absent in a main checkout (docs/worktrees.md). */
  worktree: Schema.optional(Worktree),
  files: Schema.Array(LoadedFile),
  daemons: Schema.Record({ key: Schema.String, value: ResolvedDaemon }),
  groups: Schema.Record({ key: Schema.String, value: ResolvedGroup }),
  slugs: Schema.Record({ key: Schema.String, value: ResolvedSlug }),
  /** The `[namespaces]` table of the user-level global config: name -> project directory. */
  namespaces: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  settings: Settings,
  warnings: Schema.Array(Schema.String),
}).annotations({ identifier: "ResolvedConfig" })
export type ResolvedConfig = typeof ResolvedConfig.Type
