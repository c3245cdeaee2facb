import * as nodePath from "node:path"
import { Effect } from "effect"
import type { ConfigLoaderShape } from "../config/ConfigLoader.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import type { StateStoreShape } from "../state/StateStore.js"
import type { DaemonState } from "../supervisor/DaemonState.js"

// The namespace routes (`/api/namespaces`): a project directory is registered under its namespace
// (the one its supervisor.toml gives, as the CLI sees it from that directory).

export const listNamespaces = (state: StateStoreShape, daemons: ReadonlyArray<DaemonState>) =>
  Effect.gen(function* () {
    const registered = (yield* state.get).namespaces
    const byNamespace = new Map<string, Array<string>>()
    for (const r of daemons) {
      const list = byNamespace.get(r.def.id.namespace) ?? []
      list.push(r.def.id.qualified)
      byNamespace.set(r.def.id.namespace, list)
    }
    const names = [...new Set([...Object.keys(registered), ...byNamespace.keys()])].sort()
    return names.map((name) => ({
      name,
      dir: registered[name] ?? null,
      registered: name in registered,
      daemons: (byNamespace.get(name) ?? []).sort(),
    }))
  })

export const registerNamespace = (
  state: StateStoreShape,
  loader: ConfigLoaderShape,
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
) =>
  Effect.gen(function* () {
    if (!nodePath.isAbsolute(dir))
      return { ok: false, error: `dir must be an absolute path, got ${JSON.stringify(dir)}` }
    const loaded = yield* loader.load({ cwd: dir, env }).pipe(Effect.either)
    if (loaded._tag === "Left") {
      const e = loaded.left
      const detail =
        "problems" in e && Array.isArray(e.problems) ? e.problems.map(formatProblem).join("; ") : String(e)
      return { ok: false, error: `cannot read the configuration of ${dir}: ${detail}` }
    }
    const name = loaded.right.namespace
    if (name === undefined)
      return { ok: false, error: `no project configuration (supervisor.toml) in ${dir} or above it` }
    yield* state.update((s) => ({ ...s, namespaces: { ...s.namespaces, [name]: dir } }))
    return { ok: true, namespace: { name, dir } }
  })

export const removeNamespace = (state: StateStoreShape, name: string) =>
  Effect.gen(function* () {
    const current = (yield* state.get).namespaces
    const dir = current[name]
    if (dir === undefined) return { ok: false, error: `no namespace ${JSON.stringify(name)} is registered` }
    yield* state.update((s) => {
      const namespaces = { ...s.namespaces }
      delete namespaces[name]
      return { ...s, namespaces }
    })
    return { ok: true, namespace: { name, dir } }
  })
