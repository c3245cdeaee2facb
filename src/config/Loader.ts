import * as os from "node:os"
import * as nodePath from "node:path"
import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { ConfigInvalid, type ConfigProblem, NamespaceCollision } from "../domain/ConfigProblem.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { Worktree } from "../domain/Worktree.js"
import { candidateLocations } from "./discover.js"
import { envFileProblems } from "./envFileProblems.js"
import { knownNamespaces } from "./knownNamespaces.js"
import { locateKey } from "./locate.js"
import { mergeFiles, type NamespacedFile } from "./merge.js"
import { deriveNamespace } from "./namespace.js"
import { type ParsedFile, readConfigFile } from "./parseFile.js"
import { applyEnvOverrides, decodeSettings, mergeSettings, projectSettingWarnings } from "./settings.js"
import { misplacedWorktrees, projectWorktrees, withWorktrees } from "./worktreeConfig.js"

export interface LoadOptions {
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Defaults to $HOME, then the OS home directory. */
  readonly home?: string
}

/** Problems by file (in the order found), then by line; those without a line after the file's others. */
const inFileOrder = <P extends { readonly file: string; readonly line?: number | undefined }>(
  problems: ReadonlyArray<P>,
): Array<P> => {
  const files = [...new Set(problems.map((p) => p.file))]
  return problems
    .map((p, i) => ({ p, i }))
    .sort(
      (a, b) =>
        files.indexOf(a.p.file) - files.indexOf(b.p.file) ||
        (a.p.line ?? Number.MAX_SAFE_INTEGER) - (b.p.line ?? Number.MAX_SAFE_INTEGER) ||
        a.i - b.i,
    )
    .map(({ p }) => p)
}

const namespaceCollision = (file: string, namespace: string, other: string) =>
  new NamespaceCollision({
    file,
    key: "namespace",
    message: `this project's namespace ${JSON.stringify(namespace)} is also that of ${other}: the two projects would share their daemons`,
    hint: `set a top-level namespace in one of them, e.g. namespace = "${namespace}-2" (it is taken from the directory's name when not set)`,
  })

export const defaultLoadOptions = (): LoadOptions => ({ cwd: process.cwd(), env: process.env })

/**
 * Loads every configuration file visible from `cwd` in the spec's order, derives
 * namespaces, merges, and validates. Fails with every problem found at once.
 */
export const loadConfig = (options: LoadOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const home = options.home ?? (options.env.HOME || os.homedir())
    const cwd = nodePath.resolve(options.cwd)
    // ~20 candidates for a project a few levels deep: checked all at once, kept in order.
    const locations = yield* Effect.filter(
      candidateLocations({ cwd, home, env: options.env }),
      (l) => fs.exists(l.path).pipe(Effect.orElseSucceed(() => false)),
      { concurrency: "unbounded" },
    )
    const parsed: Array<ParsedFile> = yield* Effect.forEach(locations, readConfigFile)
    const problems: Array<ConfigProblem> = parsed.flatMap((p) => p.problems)

    const byPath = new Map<string, { namespace: string; declared: string | undefined }>()
    // The first project directory of each namespace: two directories that both take the same
    // namespace from their names would share (and silently override) each other's daemons. A
    // declared `namespace` shares on purpose.
    const projects = new Map<
      string,
      { readonly baseDir: string; readonly file: string; readonly declared: boolean }
    >()
    const files: Array<NamespacedFile> = []
    // git worktrees, jj workspaces and named copies: their own namespaces and ports (docs/worktrees.md)
    const worktrees = yield* projectWorktrees(parsed, options.env)
    problems.push(...misplacedWorktrees(parsed))
    const worktreeOf = new Map<string, Worktree>()
    for (const p of parsed) {
      const sibling = p.location.sibling ? byPath.get(p.location.sibling) : undefined
      const declaredLine = p.declaredNamespace === undefined ? undefined : locateKey(p.text, ["namespace"])
      const worktree = p.location.level === "project" ? worktrees.get(p.location.baseDir) : undefined
      const derived = deriveNamespace({
        location: p.location,
        declared: p.declaredNamespace,
        declaredLine,
        sibling,
        ...(worktree && { worktree: { label: worktree.worktree.name, dirName: worktree.dirName } }),
      })
      if ("problem" in derived) {
        problems.push(derived.problem)
        continue
      }
      byPath.set(p.location.path, { namespace: derived.namespace, declared: p.declaredNamespace })
      if (p.location.level === "project") {
        const declared =
          p.declaredNamespace !== undefined || (p.location.local === true && sibling !== undefined)
        const first = projects.get(derived.namespace)
        if (first === undefined)
          projects.set(derived.namespace, { baseDir: p.location.baseDir, file: p.location.path, declared })
        else if (first.baseDir !== p.location.baseDir && !first.declared && !declared) {
          problems.push(namespaceCollision(p.location.path, derived.namespace, first.file))
          continue
        }
      }
      if (worktree !== undefined) worktreeOf.set(derived.namespace, worktree.worktree)
      files.push({ parsed: p, namespace: derived.namespace })
    }

    const env = applyEnvOverrides(mergeSettings(files.map((f) => f.parsed.settings)), options.env)
    const settings = decodeSettings(env.settings)
    const merged = mergeFiles(files, home, settings.supervisor.port_bump_attempts)
    problems.push(...merged.problems)
    problems.push(
      ...(yield* envFileProblems(
        files.map((f) => f.parsed),
        home,
      )),
    )
    const known = knownNamespaces(files, home)
    problems.push(...known.problems)
    const ignored = files
      .filter((f) => f.parsed.location.level === "project")
      .flatMap((f) => projectSettingWarnings(f.parsed.location.path, f.parsed.settings))
    problems.push(...env.problems)
    const spellings = files.flatMap((f) => f.parsed.warnings)
    if (problems.length > 0)
      return yield* new ConfigInvalid({
        problems: inFileOrder(problems),
        warnings: [...spellings, ...merged.result.warnings],
      })

    const nearest = files.filter((f) => f.parsed.location.level === "project").at(-1)
    const nearestWorktree = nearest && worktreeOf.get(nearest.namespace)
    const config: ResolvedConfig = {
      cwd,
      ...(nearest ? { namespace: nearest.namespace } : {}),
      ...(nearestWorktree ? { worktree: nearestWorktree } : {}),
      files: files.map((f) => ({
        path: f.parsed.location.path,
        level: f.parsed.location.level,
        namespace: f.namespace,
      })),
      ...merged.result,
      daemons: withWorktrees(merged.result.daemons, worktreeOf),
      ...(Object.keys(known.namespaces).length > 0 ? { namespaces: known.namespaces } : {}),
      warnings: [...spellings, ...merged.result.warnings, ...ignored],
      settings,
    }
    return config
  })
