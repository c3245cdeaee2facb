import { Effect, SubscriptionRef } from "effect"
import type { NamespaceEntry } from "../domain/ApiNamespaces.js"
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
      }
    >()
    const entry = (name: string) => {
      const e = entries.get(name) ?? {
        dir: null,
        registered: false,
        sources: new Set<string>(),
        daemons: new Set<string>(),
        problem: null,
      }
      entries.set(name, e)
      return e
    }
    for (const p of (yield* SubscriptionRef.get(projects.snapshot)).projects) {
      for (const name of new Set([...p.names, ...[projectNamespace(p) ?? []].flat()])) {
        const e = entry(name)
        e.dir ??= p.dir
        e.registered ||= p.sources.includes("registered") && p.names.includes(name)
        for (const s of p.sources) e.sources.add(s)
        e.problem ??= p.problem ?? null
        for (const def of p.definitions.values())
          if (def.id.namespace === name) e.daemons.add(def.id.qualified)
      }
    }
    for (const r of daemons) entry(r.def.id.namespace).daemons.add(r.def.id.qualified)
    return [...entries.keys()].sort().map((name): NamespaceEntry => {
      const e = entries.get(name)!
      return {
        name,
        dir: e.dir,
        registered: e.registered,
        sources: [...e.sources].sort(),
        daemons: [...e.daemons].sort(),
        problem: e.problem,
      }
    })
  })
