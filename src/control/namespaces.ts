import { Effect, SubscriptionRef } from "effect"
import type { NamespaceEntry } from "../domain/ApiNamespaces.js"
import { projectRootOf } from "../domain/slugs.js"
import type { ProjectRegistryShape } from "../registry/ProjectRegistry.js"
import { projectNamespace } from "../registry/snapshot.js"
import type { DaemonState } from "../supervisor/DaemonState.js"

// The namespaces (`Namespaces` command, `/api/namespaces`): the known projects by namespace (docs/registry.md). A
// project directory is registered under its namespace (the one its supervisor.toml gives, as the
// CLI sees it from that directory).

export const listNamespaces = (projects: ProjectRegistryShape, daemons: ReadonlyArray<DaemonState>) =>
  Effect.gen(function* () {
    const entries = new Map<
      string,
      {
        dir: string | null
        registered: boolean
        sources: Set<string>
        daemons: Set<string>
        problem: string | null
        gone: boolean
        worktree: string | null
      }
    >()
    const entry = (name: string) => {
      const e = entries.get(name) ?? {
        dir: null,
        registered: false,
        sources: new Set<string>(),
        daemons: new Set<string>(),
        problem: null,
        gone: false,
        worktree: null,
      }
      entries.set(name, e)
      return e
    }
    const known = (yield* SubscriptionRef.get(projects.snapshot)).projects
    for (const p of known) {
      for (const name of new Set([...p.names, ...[projectNamespace(p) ?? []].flat()])) {
        const e = entry(name)
        e.dir ??= p.dir
        e.gone ||= p.gone === true && e.dir === p.dir
        if (p.config?.namespace === name) e.worktree ??= p.config.worktree?.name ?? null
        e.registered ||= p.sources.includes("registered") && p.names.includes(name)
        for (const s of p.sources) e.sources.add(s)
        e.problem ??= p.problem ?? null
        for (const def of p.definitions.values())
          if (def.id.namespace === name) e.daemons.add(def.id.qualified)
      }
    }
    // a gone project no configuration was read from (the supervisor restarted since): its
    // daemons' project directory says which namespace it was
    const gone = new Set(known.filter((p) => p.gone === true).map((p) => p.dir))
    for (const r of daemons) {
      const e = entry(r.def.id.namespace)
      e.daemons.add(r.def.id.qualified)
      const dir = r.def.source === null ? undefined : projectRootOf(r.def.source)
      if (e.dir === null && dir !== undefined && gone.has(dir)) {
        e.dir = dir
        e.gone = true
      }
      if (r.def.worktree !== undefined) e.worktree ??= r.def.worktree.name
    }
    return [...entries.keys()].sort().map((name): NamespaceEntry => {
      const e = entries.get(name)!
      return {
        name,
        dir: e.dir,
        registered: e.registered,
        sources: [...e.sources].sort(),
        daemons: [...e.daemons].sort(),
        problem: e.problem,
        gone: e.gone,
        worktree: e.worktree,
      }
    })
  })
