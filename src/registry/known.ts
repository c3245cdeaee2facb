import type { PersistentState } from "../state/State.js"
import { NamespaceNotForgotten } from "./errors.js"
import { GLOBAL_DIR, type ProjectSource, type ProjectState, type RegistrySnapshot } from "./snapshot.js"

/** A known project before it is loaded: where it is and why it is known. */
export interface KnownProject {
  readonly dir: string
  readonly sources: ReadonlyArray<ProjectSource>
  readonly names: ReadonlyArray<string>
}

/**
 * Every known project, once per directory: the global config, then the `[namespaces]` of the user
 * config, the registered namespaces, and the noted directories (latest first).
 */
export const knownProjects = (
  state: PersistentState,
  configured: Readonly<Record<string, string>>,
): Array<KnownProject> => {
  const byDir = new Map<string, { sources: Array<ProjectSource>; names: Array<string> }>()
  const add = (dir: string, source: ProjectSource, name?: string) => {
    const entry = byDir.get(dir) ?? { sources: [], names: [] }
    if (!entry.sources.includes(source)) entry.sources.push(source)
    if (name !== undefined && !entry.names.includes(name)) entry.names.push(name)
    byDir.set(dir, entry)
  }
  add(GLOBAL_DIR, "global")
  for (const [name, dir] of Object.entries(configured)) add(dir, "config", name)
  for (const [name, dir] of Object.entries(state.namespaces)) add(dir, "registered", name)
  for (const dir of [...state.projects].reverse()) add(dir, "noted")
  return [...byDir].map(([dir, e]) => ({ dir, ...e }))
}

/**
 * The state without the namespace `name`: its registration and the noted directories of its
 * projects. A message saying why when nothing can be forgotten.
 */
export const forgetIn = (
  state: PersistentState,
  projects: ReadonlyArray<ProjectState>,
  name: string,
): { readonly state: PersistentState; readonly dir: string } | NamespaceNotForgotten => {
  const registered = Object.hasOwn(state.namespaces, name) ? state.namespaces[name] : undefined
  const ofName = projects.filter((p) => p.config?.namespace === name || p.names.includes(name))
  const noted = state.projects.filter((d) => d === registered || ofName.some((p) => p.dir === d))
  const dir = registered ?? noted[0]
  if (dir === undefined) {
    const configured = ofName.find((p) => p.sources.includes("config"))
    return configured !== undefined
      ? new NamespaceNotForgotten({
          name,
          reason: "in_user_config",
          message: `namespace ${JSON.stringify(name)} is listed under [namespaces] in the user config: remove it there`,
        })
      : new NamespaceNotForgotten({
          name,
          reason: "unknown",
          message: `no namespace ${JSON.stringify(name)} is registered or known`,
        })
  }
  const namespaces = { ...state.namespaces }
  delete namespaces[name]
  return { state: { ...state, namespaces, projects: state.projects.filter((d) => !noted.includes(d)) }, dir }
}

const sameProject = (a: ProjectState, b: ProjectState) =>
  a.dir === b.dir &&
  a.problem === b.problem &&
  (a.gone ?? false) === (b.gone ?? false) &&
  a.sources.join() === b.sources.join() &&
  a.names.join() === b.names.join() &&
  (a.config === b.config || JSON.stringify(a.config) === JSON.stringify(b.config))

/** Whether two snapshots say the same: an unchanged reload publishes nothing. */
export const sameSnapshot = (a: RegistrySnapshot, b: RegistrySnapshot) =>
  a.projects.length === b.projects.length &&
  a.projects.every((p, i) => sameProject(p, b.projects[i]!)) &&
  JSON.stringify(a.settings) === JSON.stringify(b.settings)
