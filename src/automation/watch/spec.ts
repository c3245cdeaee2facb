import * as nodePath from "node:path"
import { Duration } from "effect"
import type { DaemonDefinition } from "../../domain/DaemonDefinition.js"
import { compileGlob, globCouldContain, globMatches, isLiteral, type Segment } from "../../domain/Glob.js"

/** The settings a daemon's watching follows (those of its project, docs/watch.md#settings). */
export interface WatchTiming {
  /** `settings.supervisor.file_watch_debounce` */
  readonly debounce: Duration.Duration
  /** `settings.supervisor.watch_poll_interval` */
  readonly pollInterval: Duration.Duration
}

/** What to watch for one daemon: its `watch` patterns, relative to `baseDir`, and how. */
export interface WatchSpec {
  readonly id: string
  /** The directory of the config file that declares the patterns (else the daemon's `dir`). */
  readonly baseDir: string
  readonly patterns: ReadonlyArray<string>
  readonly mode: "native" | "poll" | "auto"
  readonly timing: WatchTiming
}

/**
 * The watch specs of the daemons the supervisor knows: each one with a `watch` list, as its
 * latest definition says (a restart with a new definition brings a new list), timed by `timing`.
 */
export const specsOf = (
  definitions: Iterable<DaemonDefinition>,
  timing: (id: string) => WatchTiming,
): ReadonlyArray<WatchSpec> => {
  const specs: Array<WatchSpec> = []
  for (const def of definitions) {
    if (def.config.watch.length === 0) continue
    specs.push({
      id: def.id.qualified,
      baseDir: def.source === null ? def.config.dir : nodePath.dirname(def.source),
      patterns: def.config.watch,
      mode: def.config.watch_mode,
      timing: timing(def.id.qualified),
    })
  }
  return specs
}

/** Whether the same watcher serves both specs (only the debounce may differ). */
export const sameWatcher = (a: WatchSpec, b: WatchSpec): boolean =>
  a.id === b.id &&
  a.baseDir === b.baseDir &&
  a.mode === b.mode &&
  Duration.equals(a.timing.pollInterval, b.timing.pollInterval) &&
  a.patterns.length === b.patterns.length &&
  a.patterns.every((p, i) => p === b.patterns[i])

export const sameSpec = (a: WatchSpec, b: WatchSpec): boolean =>
  sameWatcher(a, b) && Duration.equals(a.timing.debounce, b.timing.debounce)

/** One pattern split at its first glob segment: the directory to watch and the rest to match. */
export interface WatchTarget {
  readonly pattern: string
  /** Absolute: the pattern's leading literal directories. */
  readonly root: string
  /** What paths under `root` must match. */
  readonly rest: ReadonlyArray<Segment>
}

/** The target of one pattern (throws a GlobError for a malformed one). */
export const targetOf = (baseDir: string, pattern: string): WatchTarget => {
  const full = nodePath.resolve(baseDir, pattern)
  const segs = compileGlob(full)
  let n = 0
  while (n < segs.length && isLiteral(segs[n] as Segment)) n++
  // a plain file name: its directory is watched, for the file to be matched there
  if (n === segs.length) n = Math.max(0, n - 1)
  const names = segs.slice(0, n).map((s) => (isLiteral(s) ? s.name : ""))
  return { pattern, root: nodePath.join("/", ...names), rest: segs.slice(n) }
}

/** The same target one directory up (its root does not exist yet): the missing name joins `rest`. */
export const widen = (t: WatchTarget): WatchTarget => ({
  pattern: t.pattern,
  root: nodePath.dirname(t.root),
  rest: [{ _tag: "Literal", name: nodePath.basename(t.root) }, ...t.rest],
})

/** Directories never watched unless a pattern names them. */
const SKIPPED = ["node_modules", ".git"]

/** Where a path is relative to a target's root, as `/`-separated names; undefined outside it. */
const relativeTo = (t: WatchTarget, path: string): string | undefined => {
  const rel = nodePath.relative(t.root, path)
  if (rel === "") return ""
  if (rel.startsWith("..") || nodePath.isAbsolute(rel)) return undefined
  return rel.split(nodePath.sep).join("/")
}

/**
 * Whether a path under a target is left out: inside `node_modules`, `.git` or the state
 * directory, unless the pattern names it (`node_modules/x/*.js`, a pattern in the state dir).
 */
const skipped = (t: WatchTarget, rel: string, path: string, stateDir: string | undefined): boolean => {
  const named = new Set(t.rest.filter(isLiteral).map((s) => s.name))
  if (rel.split("/").some((n) => SKIPPED.includes(n) && !named.has(n))) return true
  if (stateDir === undefined) return false
  const inState = (p: string) => p === stateDir || p.startsWith(stateDir + nodePath.sep)
  return inState(path) && !inState(t.root)
}

/** Which paths matter to a daemon's targets: the files that match, the directories to descend. */
export interface PathFilter {
  /** Whether a changed file is one of the watched files. */
  readonly matches: (path: string) => boolean
  /** Whether a directory may hold watched files (the watcher descends only into those). */
  readonly descends: (path: string) => boolean
}

export const pathFilter = (
  targets: ReadonlyArray<WatchTarget>,
  stateDir: string | undefined,
): PathFilter => ({
  matches: (path) =>
    targets.some((t) => {
      const rel = relativeTo(t, path)
      return rel !== undefined && globMatches(t.rest, rel) && !skipped(t, rel, path, stateDir)
    }),
  descends: (path) =>
    targets.some((t) => {
      // the directories above a root (the watcher reaches a root through them)
      if (relativeTo({ ...t, root: path }, t.root) !== undefined) return true
      const rel = relativeTo(t, path)
      return rel !== undefined && globCouldContain(t.rest, rel) && !skipped(t, rel, path, stateDir)
    }),
})

/** How a changed file is named in the daemon's log: relative to the config's directory. */
export const displayPath = (baseDir: string, path: string): string => {
  const rel = nodePath.relative(baseDir, path)
  return rel === "" || rel.startsWith("..") || nodePath.isAbsolute(rel) ? path : rel
}
