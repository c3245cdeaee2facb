import { Schema } from "effect"
import { DaemonConfig } from "./DaemonConfig.js"
import { DaemonIdObject } from "./DaemonId.js"
import { InstanceOf } from "./Instances.js"
import { Worktree } from "./Worktree.js"

/**
 * What the supervisor needs to run a daemon: its ID and resolved configuration.
 * Config daemons come from the CLI's view of the configuration files; ad-hoc
 * daemons (`supervisor run`) are described on the command line.
 */
export const DaemonDefinition = Schema.Struct({
  id: DaemonIdObject,
  config: DaemonConfig,
  adhoc: Schema.Boolean,
  /** The config file it came from; null for ad-hoc daemons. */
  source: Schema.NullOr(Schema.String),
  /** Set for an instance of a daemon with `instances` (docs/replicas.md). */
  instance: Schema.optional(InstanceOf),
  /** The worktree its project directory is in; absent in a main checkout (docs/worktrees.md). */
  worktree: Schema.optional(Worktree),
}).annotations({ identifier: "DaemonDefinition" })
export type DaemonDefinition = typeof DaemonDefinition.Type
