import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect } from "effect"
import type { DaemonRecord } from "../../src/state/State.js"

/** A temp directory for the test's scope. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-state-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
)

/** A running daemon's record; `retry_count` tells records of one daemon apart. */
export const record = (id: string, retry_count = 0): DaemonRecord => ({
  id,
  definition: { id: { qualified: id }, config: { run: "serve", dir: "/srv" } },
  adhoc: false,
  status: { type: "running" },
  pid: 4242,
  start_time: "987654",
  started_at: 1_700_000_000_000,
  ports: [],
  retry_count,
  retry_pending: false,
})
