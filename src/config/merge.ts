import { Either } from "effect"
import {
  type ConfigProblem,
  ConflictingKeys,
  DependencyCycle,
  InvalidDependency,
  InvalidGroupMember,
  InvalidValue,
  MisplacedSlugs,
  MissingRun,
} from "../domain/ConfigProblem.js"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import { DaemonId, parseDaemonRef, toIdObject } from "../domain/DaemonId.js"
import { type DaemonOptions, DEPRECATED_PORT_KEYS, daemonOptionFields } from "../domain/DaemonOptions.js"
import { type DependencyCondition, entryCondition, entryId } from "../domain/Dependency.js"
import type { ResolvedConfig, ResolvedDaemon, ResolvedGroup, ResolvedSlug } from "../domain/ResolvedConfig.js"
import { slugProblem } from "../domain/slugs.js"
import { closest } from "../domain/suggest.js"
import { findCycle } from "./dependencies.js"
import { resolveEnvFiles, sharedEnvOf, sharedTemplateProblems } from "./envMerge.js"
import { instanceNameProblems } from "./instanceNames.js"
import { locateKey } from "./locate.js"
import type { ParsedFile } from "./parseFile.js"
import { expandPath } from "./paths.js"
import { restartConflicts } from "./restartConflicts.js"
import { templateProblems } from "./templateChecks.js"

export interface NamespacedFile {
  readonly parsed: ParsedFile
  readonly namespace: string
}

type Options = { -readonly [K in keyof DaemonOptions]: DaemonOptions[K] }

interface Draft {
  readonly id: DaemonId
  options: Options
  /** The file that last set each key, for error locations. */
  readonly keySource: Map<string, ParsedFile>
  readonly sources: Array<string>
  readonly firstBase: string
  broken: boolean
}

const where = (file: ParsedFile | undefined, path: ReadonlyArray<string | number>) => {
  if (!file) return { file: "(unknown)" }
  const line = locateKey(file.text, path)
  return line === undefined ? { file: file.location.path } : { file: file.location.path, line }
}

const fileIndex = (files: ReadonlyArray<NamespacedFile>, file: ParsedFile | undefined) =>
  files.findIndex((f) => f.parsed === file)

/**
 * Folds the deprecated `expected_port` / `auto_bump_port` / `port_bump_attempts`
 * into `port`, with a warning. `port` and the deprecated keys in one file conflict;
 * in different files the later file wins, as with any other key.
 */
const foldDeprecatedPorts = (
  draft: Draft,
  files: ReadonlyArray<NamespacedFile>,
  bumpAttempts: number,
): { port: Options["port"]; warning?: string } | { problem: ConfigProblem } => {
  const o = draft.options
  const deprecated = DEPRECATED_PORT_KEYS.filter((k) => o[k] !== undefined)
  if (deprecated.length === 0) return { port: o.port }
  const first = deprecated[0]!
  const file = draft.keySource.get(first)
  const at = where(file, ["daemons", draft.id.name, first])
  const key = `daemons.${draft.id.name}.${first}`
  const location = `${at.file}${"line" in at ? `:${at.line}` : ""}: ${key}`
  const keys = `\`${deprecated.join("`, `")}\``
  if (o.port !== undefined) {
    const portIndex = fileIndex(files, draft.keySource.get("port"))
    const newestDeprecated = Math.max(...deprecated.map((k) => fileIndex(files, draft.keySource.get(k))))
    if (portIndex === newestDeprecated) {
      return {
        problem: new ConflictingKeys({
          ...at,
          key,
          message: `both \`port\` and the deprecated ${keys} are set`,
          hint: "remove the deprecated keys; `port` = { expect = [...], bump = ... } replaces them",
        }),
      }
    }
    if (portIndex > newestDeprecated) {
      return {
        port: o.port,
        warning: `${location}: ${keys} ${deprecated.length > 1 ? "are" : "is"} deprecated and overridden by \`port\` in a later file; remove ${deprecated.length > 1 ? "them" : "it"}`,
      }
    }
  }
  const bump = o.auto_bump_port === true ? (o.port_bump_attempts ?? bumpAttempts) : false
  if (o.expected_port === undefined) {
    return {
      port: o.port,
      warning: `${location}: ${keys} ${deprecated.length > 1 ? "are" : "is"} deprecated and ${deprecated.length > 1 ? "have" : "has"} no effect without \`expected_port\`; write port = { expect = [...], bump = ${bump === false ? "false" : bump} }`,
    }
  }
  return {
    port: { expect: o.expected_port, bump },
    warning: `${location}: ${keys} ${deprecated.length > 1 ? "are" : "is"} deprecated; write port = { expect = [${o.expected_port.join(", ")}], bump = ${bump} }`,
  }
}

/** The keys a daemon's resolved configuration takes as written (not the deprecated port keys). */
type ConfigKey = keyof typeof DaemonConfig.fields & keyof Options
const CONFIG_KEYS = Object.keys(DaemonConfig.fields).filter(
  (k): k is ConfigKey => k in daemonOptionFields && k !== "depends",
)

/** The keys of `DaemonConfig` that the merged options set; defaults fill the rest. */
const configKeysOf = (o: Options) =>
  // fromEntries loses the key-value pairing that CONFIG_KEYS and Options keep
  Object.fromEntries(CONFIG_KEYS.flatMap((k) => (o[k] === undefined ? [] : [[k, o[k]]]))) as {
    [K in ConfigKey]?: Exclude<Options[K], undefined>
  }

/**
 * A daemon's dependencies as the resolved configuration keeps them: the qualified IDs, and the
 * conditions that are not `ready`. One ID listed twice with different conditions is a problem.
 */
const dependsOf = (
  draft: Draft,
): { ids: Array<string>; conditions: Record<string, DependencyCondition> } | { problem: ConfigProblem } => {
  const ids: Array<string> = []
  const conditions: Record<string, DependencyCondition> = {}
  const seen = new Map<string, DependencyCondition>()
  for (const [i, entry] of (draft.options.depends ?? []).entries()) {
    const id = entryId(entry)
    const condition = entryCondition(entry)
    const before = seen.get(id)
    if (before !== undefined && before !== condition) {
      return {
        problem: new InvalidDependency({
          ...where(draft.keySource.get("depends"), ["daemons", draft.id.name, "depends", i]),
          key: `daemons.${draft.id.name}.depends[${i}]`,
          message: `${draft.id.qualified} depends on ${id} twice, with conditions "${before}" and "${condition}"`,
          hint: "list each dependency once, with the condition it needs",
        }),
      }
    }
    seen.set(id, condition)
    ids.push(id)
    if (condition !== "ready") conditions[id] = condition
  }
  return { ids, conditions }
}

/** A daemon named as an instance of a daemon with `instances` (`api.2` beside `api`) is refused. */
const instanceCollisions = (
  drafts: Iterable<Draft>,
  daemons: Readonly<Record<string, ResolvedDaemon>>,
): Array<ConfigProblem> =>
  instanceNameProblems(
    [...drafts].map((d) => ({
      id: d.id,
      instances: daemons[d.id.qualified]?.config.instances,
      at: (key: string | undefined) =>
        key === undefined
          ? where(d.keySource.get("run") ?? [...d.keySource.values()][0], ["daemons", d.id.name])
          : where(d.keySource.get(key), ["daemons", d.id.name, key]),
    })),
  )

/** Merges parsed files (load order) into one model and checks what spans files. */
export const mergeFiles = (
  files: ReadonlyArray<NamespacedFile>,
  home: string,
  /** `settings.supervisor.port_bump_attempts`: the attempts of `auto_bump_port` alone. */
  bumpAttempts: number,
): {
  readonly result: Omit<ResolvedConfig, "cwd" | "namespace" | "files" | "settings">
  readonly problems: Array<ConfigProblem>
} => {
  const problems: Array<ConfigProblem> = []
  const warnings: Array<string> = []
  const drafts = new Map<string, Draft>()

  for (const { parsed, namespace } of files) {
    for (const [name, options] of parsed.daemons) {
      const id = new DaemonId({ namespace, name })
      let draft = drafts.get(id.qualified)
      if (!draft) {
        draft = {
          id,
          options: {},
          keySource: new Map(),
          sources: [],
          firstBase: parsed.location.baseDir,
          broken: false,
        }
        drafts.set(id.qualified, draft)
      }
      draft.sources.push(parsed.location.path)
      if (!options) {
        draft.broken = true
        continue
      }
      const resolved: Options = { ...options }
      if (options.dir !== undefined) resolved.dir = expandPath(options.dir, parsed.location.baseDir, home)
      if (options.env_file !== undefined)
        resolved.env_file = resolveEnvFiles(options.env_file, parsed.location.baseDir, home)
      if (options.depends !== undefined) {
        // Short names resolve in the namespace of the file that wrote them.
        const qualify = (d: string) =>
          Either.match(parseDaemonRef(d, namespace), { onLeft: () => d, onRight: (r) => r.qualified })
        resolved.depends = options.depends.map((d) =>
          typeof d === "string" ? qualify(d) : { ...d, id: qualify(d.id) },
        )
      }
      for (const key of Object.keys(resolved)) draft.keySource.set(key, parsed)
      draft.options = { ...draft.options, ...resolved }
    }
  }

  const daemons: Record<string, ResolvedDaemon> = {}
  for (const draft of drafts.values()) {
    if (draft.broken) continue
    const o = draft.options
    const keyName = (key: string) => `daemons.${draft.id.name}.${key}`
    if (o.run === undefined) {
      const last = files.find(
        (f) => f.parsed.location.path === draft.sources[draft.sources.length - 1],
      )?.parsed
      problems.push(
        new MissingRun({
          ...where(last, ["daemons", draft.id.name]),
          key: keyName("run"),
          message: `daemon ${draft.id.qualified} has no \`run\` command`,
          hint: `add run = "<command>" to [daemons.${draft.id.name}]`,
        }),
      )
      continue
    }
    const folded = foldDeprecatedPorts(draft, files, bumpAttempts)
    if ("problem" in folded) {
      problems.push(folded.problem)
      continue
    }
    if (folded.warning) warnings.push(folded.warning)
    const port = folded.port
    const depends = dependsOf(draft)
    if ("problem" in depends) {
      problems.push(depends.problem)
      continue
    }
    const policy = restartConflicts(o, draft.id.name, (key) =>
      where(draft.keySource.get(key), ["daemons", draft.id.name, key]),
    )
    if (policy.problem !== undefined) {
      problems.push(policy.problem)
      continue
    }
    if (policy.warning !== undefined) warnings.push(policy.warning)
    const config = new DaemonConfig({
      ...configKeysOf(o),
      ...sharedEnvOf(files, draft.sources, home),
      run: o.run,
      dir: o.dir ?? draft.firstBase,
      ...(port !== undefined && { port }),
      depends: depends.ids,
      depends_conditions: depends.conditions,
    })
    daemons[draft.id.qualified] = {
      id: toIdObject(draft.id),
      config,
      source: draft.sources[draft.sources.length - 1]!,
      sources: [...new Set(draft.sources)],
    }
  }

  problems.push(...instanceCollisions(drafts.values(), daemons))

  // Dependencies and templates must name daemons that exist (broken ones count as existing).
  const known = [...drafts.keys()]
  for (const draft of drafts.values()) {
    const d = daemons[draft.id.qualified]
    if (!d) continue
    const depFile = draft.keySource.get("depends")
    d.config.depends.forEach((dep, i) => {
      if (drafts.has(dep)) return
      const name = dep.slice(dep.indexOf("/") + 1)
      const suggestion = closest(dep, known) ?? known.find((k) => k.endsWith(`/${name}`))
      problems.push(
        new InvalidDependency({
          ...where(depFile, ["daemons", draft.id.name, "depends"]),
          key: `daemons.${draft.id.name}.depends[${i}]`,
          message: `${draft.id.qualified} depends on ${JSON.stringify(dep)}, which is not a configured daemon`,
          hint:
            suggestion !== undefined
              ? `did you mean "${suggestion}"?`
              : `known daemons: ${known.join(", ") || "(none)"}`,
        }),
      )
    })
    problems.push(
      ...templateProblems(draft.id, d.config, known, (path) =>
        where(draft.keySource.get(path[0]!), ["daemons", draft.id.name, ...path]),
      ),
    )
  }
  problems.push(...sharedTemplateProblems(files, (id) => drafts.has(id), known))
  const graph = new Map(Object.values(daemons).map((d) => [d.id.qualified, d.config.depends] as const))
  const cycle = findCycle(graph)
  if (cycle) {
    const first = daemons[cycle[0]!]!
    const file = files.find((f) => f.parsed.location.path === first.source)?.parsed
    problems.push(
      new DependencyCycle({
        ...where(file, ["daemons", first.id.name, "depends"]),
        key: `daemons.${first.id.name}.depends`,
        message: `circular dependency: ${cycle.join(" -> ")}`,
        hint: "remove one of these dependencies",
        cycle,
      }),
    )
  }

  // Groups: later definitions replace earlier ones; members are qualified in the file's namespace.
  const groups: Record<string, ResolvedGroup> = {}
  for (const { parsed, namespace } of files) {
    for (const [name, group] of parsed.groups) {
      const members: Array<string> = []
      group.daemons.forEach((m, i) => {
        Either.match(parseDaemonRef(m, namespace), {
          onLeft: (message) =>
            problems.push(
              new InvalidGroupMember({
                ...where(parsed, ["groups", name, "daemons"]),
                key: `groups.${name}.daemons[${i}]`,
                message,
              }),
            ),
          onRight: (id) => members.push(id.qualified),
        })
      })
      groups[name] = { daemons: members, source: parsed.location.path }
    }
  }

  // Slugs: user-level global config only.
  const slugs: Record<string, ResolvedSlug> = {}
  for (const { parsed } of files) {
    if (!parsed.slugs) continue
    if (parsed.location.level !== "user") {
      problems.push(
        new MisplacedSlugs({
          ...where(parsed, ["slugs"]),
          key: "slugs",
          message: "[slugs] is only read from the user-level global config",
          hint: "move it to ~/.config/supervisor/config.toml",
        }),
      )
      continue
    }
    for (const [slug, value] of Object.entries(parsed.slugs)) {
      const problem = slugProblem(slug)
      if (problem) {
        problems.push(
          new InvalidValue({
            ...where(parsed, ["slugs", slug]),
            key: `slugs.${slug}`,
            message: `invalid slug ${JSON.stringify(slug)}: ${problem}`,
          }),
        )
        continue
      }
      const v = value as { dir?: unknown; daemon?: unknown }
      if (typeof v.dir !== "string") continue // reported by the file schema
      slugs[slug] = {
        dir: expandPath(v.dir, parsed.location.baseDir, home),
        daemon: typeof v.daemon === "string" ? v.daemon : slug,
      }
    }
  }

  return { result: { daemons, groups, slugs, warnings }, problems }
}
