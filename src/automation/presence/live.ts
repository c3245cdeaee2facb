// Presence wired to the supervisor: the known projects' `auto` daemons (ProjectRegistry), starts
// and stops as commands to Control (dependencies first, reason `shell`), stops logged in the
// daemon's log.
import { Duration, Effect, SubscriptionRef } from "effect"
import { Control } from "../../control/Control.js"
import { selectOne, startOne } from "../../control/startOne.js"
import { Stop } from "../../domain/Command.js"
import { LogStore } from "../../logs/LogStore.js"
import { ProjectRegistry } from "../../registry/ProjectRegistry.js"
import { GLOBAL_DIR } from "../../registry/snapshot.js"
import { Supervisor } from "../../supervisor/Supervisor.js"
import { projectDirOf, projectDirOfFile } from "./directories.js"
import { processStartTime } from "./identity.js"
import { type AutoDaemon, type PresenceDeps, presenceLayer } from "./Presence.js"

const liveDeps = Effect.gen(function* () {
  const control = yield* Control
  const sup = yield* Supervisor
  const projects = yield* ProjectRegistry
  const logs = yield* LogStore
  const deps: PresenceDeps = {
    startTime: processStartTime,
    know: (dir) => {
      const root = projectDirOf(dir)
      if (root === undefined) return Effect.void
      return Effect.gen(function* () {
        yield* projects.note(root)
        // noted already but still loading (the supervisor notes the directory it starts in): wait
        const { projects: known } = yield* SubscriptionRef.get(projects.snapshot)
        if (!known.some((p) => p.dir === root && p.config !== undefined)) yield* projects.reload
      })
    },
    autoDaemons: Effect.map(SubscriptionRef.get(projects.snapshot), (snapshot) => {
      // a supervisor setting: the global files' (and the environment's), read again as they change
      const delay = snapshot.settings.general.autostop_delay
      const out = new Map<string, AutoDaemon>()
      for (const p of snapshot.projects) {
        if (p.dir === GLOBAL_DIR) continue
        for (const [id, def] of p.definitions) {
          const auto = def.config.auto
          if (auto.length === 0 || def.source === null || out.has(id)) continue
          out.set(id, {
            id,
            dir: projectDirOfFile(def.source),
            start: auto.includes("start"),
            stop: auto.includes("stop"),
            delay: Duration.decode(delay),
          })
        }
      }
      return [...out.values()]
    }),
    isRunning: sup.isRunning,
    start: (ids) =>
      Effect.forEach(
        ids,
        (id) =>
          startOne(control, id, { force: false, reason: "shell" }).pipe(
            Effect.catchAll((e) => Effect.logWarning(`cannot auto-start ${id}: ${e.message}`)),
          ),
        { concurrency: "unbounded", discard: true },
      ),
    stop: (id, why) =>
      logs.note(id, why).pipe(
        Effect.catchAll(() => Effect.void),
        Effect.zipRight(control.handle(new Stop({ selection: selectOne(id), reason: "shell" }))),
        Effect.catchAll((e) => Effect.logWarning(`cannot autostop ${id}: ${e.message}`)),
      ),
  }
  return deps
})

export const PresenceLive = presenceLayer(liveDeps)
