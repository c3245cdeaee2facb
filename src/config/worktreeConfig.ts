// What a worktree changes in a loaded configuration (docs/worktrees.md): which project directories
// are worktrees (detected, or named by `worktree = ...`), and their daemons' ports moved by the
// worktree's offset so that two checkouts run the same stack side by side.
import { Effect } from "effect"
import { type ConfigProblem, InvalidValue } from "../domain/ConfigProblem.js"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { portDelta, type Worktree, worktreeLabel, worktreeOffset } from "../domain/Worktree.js"
import { locateKey } from "./locate.js"
import type { ParsedFile } from "./parseFile.js"
import { type Checkout, checkoutsOf, mainDirOf, projectDirName } from "./worktree.js"

/** A project directory's worktree, and the directory name its namespace starts from. */
interface ProjectWorktree {
  readonly worktree: Worktree
  readonly dirName: string
}

/** How many offsets past a worktree's own a daemon without `port.bump` may still try. */
const WORKTREE_BUMP = 10

/** `worktree = ...` by project directory: a `.local` file's value over its sibling's. */
const declaredWorktrees = (parsed: ReadonlyArray<ParsedFile>): Map<string, string | false> => {
  const out = new Map<string, string | false>()
  const project = parsed.filter((p) => p.location.level === "project" && p.declaredWorktree !== undefined)
  for (const p of [...project.filter((p) => !p.location.local), ...project.filter((p) => p.location.local)])
    out.set(p.location.baseDir, p.declaredWorktree!)
  return out
}

const worktreeOf = (
  dir: string,
  checkout: Checkout | undefined,
  declared: string | false | undefined,
): ProjectWorktree | undefined => {
  if (declared === false) return undefined
  const name = declared ?? checkout?.name
  if (name === undefined) return undefined
  const label = worktreeLabel(name)
  const main = checkout === undefined ? undefined : mainDirOf(checkout, dir)
  return {
    worktree: {
      name: label,
      kind: checkout?.kind ?? "copy",
      main: main ?? null,
      offset: worktreeOffset(label),
    },
    dirName: projectDirName(checkout, dir),
  }
}

/** `worktree = ...` in a global file: a checkout is a project's, so only project files say it. */
export const misplacedWorktrees = (parsed: ReadonlyArray<ParsedFile>): Array<ConfigProblem> =>
  parsed
    .filter((p) => p.location.level !== "project" && p.declaredWorktree !== undefined)
    .map((p) => {
      const line = locateKey(p.text, ["worktree"])
      return new InvalidValue({
        file: p.location.path,
        ...(line === undefined ? {} : { line }),
        key: "worktree",
        message: "`worktree` names a project's checkout: it is only read from project files",
        hint: "move it to the project's supervisor.local.toml, or remove it",
      })
    })

/** `SUPERVISOR_WORKTREE=false` (or `0`): every checkout is a main one, whatever its files say. */
const worktreesOff = (env: Readonly<Record<string, string | undefined>>): boolean =>
  env.SUPERVISOR_WORKTREE === "false" || env.SUPERVISOR_WORKTREE === "0"

/**
 * The worktree of each project directory of `parsed` that is one (read from files, no git or jj
 * run); none with `SUPERVISOR_WORKTREE=false`.
 */
export const projectWorktrees = (
  parsed: ReadonlyArray<ParsedFile>,
  env: Readonly<Record<string, string | undefined>>,
) =>
  Effect.gen(function* () {
    if (worktreesOff(env)) return new Map<string, ProjectWorktree>()
    const dirs = [
      ...new Set(parsed.filter((p) => p.location.level === "project").map((p) => p.location.baseDir)),
    ]
    const declared = declaredWorktrees(parsed)
    const checkouts = yield* checkoutsOf(dirs)
    const out = new Map<string, ProjectWorktree>()
    for (const dir of dirs) {
      const found = worktreeOf(dir, checkouts.get(dir), declared.get(dir))
      if (found !== undefined) out.set(dir, found)
    }
    return out
  })

/**
 * A worktree daemon's configuration: its declared ports (and a `ready_port` among them) moved by
 * the worktree's offset, and bumped past a port still taken when it sets no `port.bump`.
 */
const inWorktree = (config: DaemonConfig, worktree: Worktree): DaemonConfig => {
  const port = config.port
  if (port === undefined || port.expect.length === 0) return config
  const delta = portDelta(port.expect, worktree.offset)
  const bump = port.bump === false || port.bump === 0 ? WORKTREE_BUMP : port.bump
  const ready = config.ready_port
  const readyMoves = ready !== undefined && typeof ready.port === "number" && port.expect.includes(ready.port)
  return new DaemonConfig({
    ...config,
    port: { expect: port.expect.map((p) => p + delta), bump },
    ...(readyMoves ? { ready_port: { ...ready, port: (ready.port as number) + delta } } : {}),
  })
}

/** The daemons with their worktree (by namespace) attached and their ports moved. */
export const withWorktrees = (
  daemons: Readonly<Record<string, ResolvedDaemon>>,
  byNamespace: ReadonlyMap<string, Worktree>,
): Record<string, ResolvedDaemon> => {
  if (byNamespace.size === 0) return { ...daemons }
  const out: Record<string, ResolvedDaemon> = {}
  for (const [id, d] of Object.entries(daemons)) {
    const worktree = byNamespace.get(d.id.namespace)
    out[id] = worktree === undefined ? d : { ...d, worktree, config: inWorktree(d.config, worktree) }
  }
  return out
}
