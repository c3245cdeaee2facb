// Which checkout a project directory is (docs/worktrees.md): found by reading the files git and jj
// leave, never by running them, since configuration loading is on every command's path.
//   git linked worktree: `<root>/.git` is a file `gitdir: <common>/worktrees/<name>`
//   jj workspace:        `<root>/.jj/repo` is a file naming the main workspace's `.jj/repo`
import * as nodePath from "node:path"
import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { worktreeLabel } from "../domain/Worktree.js"

/** A second checkout of a repository: where it is, its name, and where the main checkout is. */
export interface Checkout {
  readonly kind: "git" | "jj"
  /** The worktree's name: git's administrative name, or the jj workspace's directory name. */
  readonly name: string
  /** The top directory of this checkout. */
  readonly root: string
  /** The top directory of the main checkout; undefined for a bare git repository. */
  readonly mainRoot: string | undefined
  /** The repository's name: the main checkout's directory name (a bare one's without `.git`). */
  readonly repoName: string
}

type Marks = { readonly jj: string | undefined; readonly git: string | undefined }

/** `dir` and every directory above it, nearest first. */
const ancestors = (dir: string): Array<string> => {
  const out: Array<string> = []
  for (let d = nodePath.resolve(dir); ; d = nodePath.dirname(d)) {
    out.push(d)
    if (nodePath.dirname(d) === d) return out
  }
}

const typeOf = (fs: FileSystem.FileSystem, path: string) =>
  fs.stat(path).pipe(
    Effect.map((info): string => info.type),
    Effect.orElseSucceed(() => undefined),
  )

const readText = (fs: FileSystem.FileSystem, path: string) =>
  fs.readFileString(path).pipe(Effect.orElseSucceed(() => undefined))

/** A git linked worktree at `root` (its `.git` is a file), or undefined (a submodule, unreadable). */
const gitWorktree = (fs: FileSystem.FileSystem, root: string) =>
  Effect.gen(function* () {
    const text = yield* readText(fs, nodePath.join(root, ".git"))
    const match = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text)
    if (match === null) return undefined
    const gitdir = nodePath.resolve(root, match[1]!)
    // a submodule's `.git` points into `<super>/.git/modules/`: not a second checkout
    if (nodePath.basename(nodePath.dirname(gitdir)) !== "worktrees") return undefined
    const commondir = yield* readText(fs, nodePath.join(gitdir, "commondir"))
    const common =
      commondir === undefined || commondir.trim() === ""
        ? nodePath.dirname(nodePath.dirname(gitdir))
        : nodePath.resolve(gitdir, commondir.trim())
    const bare = nodePath.basename(common) !== ".git"
    const mainRoot = bare ? undefined : nodePath.dirname(common)
    const repoName = bare ? nodePath.basename(common).replace(/\.git$/, "") : nodePath.basename(mainRoot!)
    return { kind: "git", name: nodePath.basename(gitdir), root, mainRoot, repoName } satisfies Checkout
  })

/** A jj workspace at `root` other than the main one (its `.jj/repo` is a file), or undefined. */
const jjWorkspace = (fs: FileSystem.FileSystem, root: string) =>
  Effect.gen(function* () {
    const repo = nodePath.join(root, ".jj", "repo")
    if ((yield* typeOf(fs, repo)) !== "File") return undefined
    const text = (yield* readText(fs, repo))?.trim()
    if (text === undefined || text === "") return undefined
    const mainRepo = nodePath.resolve(nodePath.join(root, ".jj"), text)
    const dotJj = nodePath.dirname(mainRepo)
    const mainRoot = nodePath.basename(dotJj) === ".jj" ? nodePath.dirname(dotJj) : undefined
    if (mainRoot === undefined) return undefined
    return {
      kind: "jj",
      name: nodePath.basename(root),
      root,
      mainRoot,
      repoName: nodePath.basename(mainRoot),
    } satisfies Checkout
  })

/**
 * For each of `dirs` (directories on one path from `/`), the second checkout it lies in, if any:
 * the nearest directory at or above it with `.jj` or `.git` decides (`.jj` first, as a colocated
 * jj workspace has both). A main checkout, or no repository at all, gives undefined.
 */
export const checkoutsOf = (dirs: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const out = new Map<string, Checkout | undefined>()
    if (dirs.length === 0) return out
    const fs = yield* FileSystem.FileSystem
    const deepest = dirs.reduce((a, b) => (b.length > a.length ? b : a))
    const chain = ancestors(deepest)
    // every level's two markers at once: ~2 stats per directory level, in parallel
    const marks = yield* Effect.forEach(
      chain,
      (d) =>
        Effect.all({ jj: typeOf(fs, nodePath.join(d, ".jj")), git: typeOf(fs, nodePath.join(d, ".git")) }),
      { concurrency: "unbounded" },
    )
    const byDir = new Map<string, Marks>(chain.map((d, i) => [d, marks[i]!]))
    const found = new Map<string, Checkout | undefined>()
    for (const dir of dirs) {
      const root = ancestors(dir).find((d) => {
        const m = byDir.get(d)
        return m !== undefined && (m.jj === "Directory" || m.git !== undefined)
      })
      if (root === undefined) {
        out.set(dir, undefined)
        continue
      }
      if (!found.has(root)) {
        const m = byDir.get(root)!
        found.set(
          root,
          m.jj === "Directory"
            ? yield* jjWorkspace(fs, root)
            : m.git === "File"
              ? yield* gitWorktree(fs, root)
              : undefined,
        )
      }
      out.set(dir, found.get(root))
    }
    return out
  })

/** Where `dir` of a second checkout is in the main checkout; undefined when that is not known. */
export const mainDirOf = (checkout: Checkout, dir: string): string | undefined =>
  checkout.mainRoot === undefined
    ? undefined
    : nodePath.join(checkout.mainRoot, nodePath.relative(checkout.root, dir))

/**
 * The directory name a project takes its namespace from: that of the same directory in the main
 * checkout (a worktree's directory is often named after its branch), the repository's name for
 * the top directory of a bare repository's worktree.
 */
export const projectDirName = (checkout: Checkout | undefined, dir: string): string => {
  if (checkout === undefined) return nodePath.basename(dir)
  const main = mainDirOf(checkout, dir)
  if (main !== undefined) return nodePath.basename(main)
  return nodePath.relative(checkout.root, dir) === "" ? checkout.repoName : nodePath.basename(dir)
}

/**
 * The directory of `mainDir` (a project directory of a main git checkout) in the linked worktree
 * whose label is `label`, read from `.git/worktrees/*\/gitdir`; undefined when there is none.
 */
export const gitWorktreeDir = (mainDir: string, label: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    for (const root of ancestors(mainDir)) {
      const type = yield* typeOf(fs, nodePath.join(root, ".git"))
      if (type === undefined) continue
      if (type !== "Directory") return undefined
      const admin = nodePath.join(root, ".git", "worktrees")
      const names = yield* fs.readDirectory(admin).pipe(Effect.orElseSucceed((): Array<string> => []))
      const name = names.find((n) => worktreeLabel(n) === label)
      if (name === undefined) return undefined
      const gitdir = (yield* readText(fs, nodePath.join(admin, name, "gitdir")))?.trim()
      if (gitdir === undefined || gitdir === "") return undefined
      const worktreeRoot = nodePath.dirname(nodePath.resolve(admin, name, gitdir))
      return nodePath.join(worktreeRoot, nodePath.relative(root, mainDir))
    }
    return undefined
  })
