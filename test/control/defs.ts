import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import type { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import { DaemonId, toIdObject } from "../../src/domain/DaemonId.js"

/** A definition `app/<name>` running `x` in /app, an instance of a replicated daemon when given. */
export const def = (name: string, instance?: { daemon: string; index: number }): DaemonDefinition => ({
  id: toIdObject(new DaemonId({ namespace: "app", name })),
  config: new DaemonConfig({ run: "x", dir: "/app" }),
  adhoc: false,
  source: "/app/supervisor.toml",
  ...(instance === undefined ? {} : { instance }),
})
