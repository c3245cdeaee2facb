import { Console, Effect } from "effect"
import { WorktreePruneResult } from "../../domain/CliOutput.js"
import { Clean, Namespaces, Stop } from "../../domain/Command.js"
import { isActive } from "../../domain/DaemonStatus.js"
import type { WorktreePruneOptions } from "../args/worktree.js"
import { SupervisorClient } from "../client.js"
import { sendCommand } from "../commandClient.js"
import { canAsk, confirm } from "../confirm.js"
import { cyan, dim, green, printJson, warn } from "../output.js"
import { knownDaemons } from "../selection.js"
import { withSupervisor } from "../session.js"

/**
 * `supervisor worktree prune`: the namespaces whose project directory is gone (the supervisor's
 * registry marks them, docs/worktrees.md) have their daemons stopped, forgotten with their logs,
 * and the namespace forgotten. On a terminal it lists them and asks first (`--yes` does not);
 * without one it proceeds, as `clean` does.
 */
export const prune = (o: WorktreePruneOptions) =>
  withSupervisor(false, () =>
    Effect.gen(function* () {
      const all = yield* sendCommand(new Namespaces({ reason: "cli" })).pipe(Effect.orDie)
      const gone = all.filter((n) => n.gone && n.dir !== null)
      const empty = { namespaces: [], stopped: [], removed: [] }
      if (gone.length === 0) {
        if (o.json) return yield* printJson(WorktreePruneResult, empty)
        return yield* Console.log(dim("nothing to prune: every known project directory exists"))
      }
      const names = new Set(gone.map((n) => n.name))
      const known = yield* knownDaemons
      const running = known.filter((k) => names.has(k.id.namespace) && isActive(k)).map((k) => k.id.qualified)
      if (!o.yes && canAsk()) {
        for (const n of gone) {
          const what = n.worktree === null ? "" : ` (worktree ${n.worktree})`
          yield* Console.log(`  ${cyan(n.name)}${what} ${dim(`${n.dir} is gone`)}`)
          for (const id of n.daemons)
            yield* Console.log(`    ${id}${running.includes(id) ? dim(" (running: stopped)") : ""}`)
        }
        const yes = yield* confirm(
          gone.length === 1
            ? "Stop its daemons and forget this namespace?"
            : `Stop their daemons and forget these ${gone.length} namespaces?`,
        )
        if (!yes) {
          if (o.json) return yield* printJson(WorktreePruneResult, empty)
          return yield* Console.log(dim("nothing pruned"))
        }
      }
      const stopped =
        running.length === 0
          ? []
          : (yield* sendCommand(new Stop({ selection: { ids: running, all: false }, reason: "cli" })).pipe(
              Effect.orDie,
            )).map((r) => r.id)
      const { removed } = yield* sendCommand(
        new Clean({ selection: { ids: [], all: false }, namespaces: [...names], reason: "cli" }),
      ).pipe(Effect.orDie)
      const c = yield* SupervisorClient
      const forgotten: Array<{ name: string; dir: string; worktree: string | null }> = []
      for (const n of gone) {
        const r = yield* c.api.daemons.removeNamespace({ path: { namespace: n.name } }).pipe(Effect.orDie)
        // a namespace only its daemons named (no registration, no noted directory) is forgotten with them
        if (r.ok || removed.some((id) => id.startsWith(`${n.name}/`)))
          forgotten.push({ name: n.name, dir: n.dir!, worktree: n.worktree })
        else yield* warn(`namespace ${n.name} was not forgotten: ${r.error ?? "unknown error"}`)
      }
      const result = { namespaces: forgotten, stopped, removed }
      if (o.json) return yield* printJson(WorktreePruneResult, result)
      for (const n of forgotten) yield* Console.log(`${green("✓")} forgot ${cyan(n.name)} ${dim(n.dir)}`)
      if (removed.length > 0)
        yield* Console.log(dim(`stopped ${stopped.length}, forgot ${removed.length} daemon(s)`))
    }),
  )
