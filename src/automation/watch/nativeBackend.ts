import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as fsAsync from "../../state/fsAsync.js"
import type { Backend } from "./backend.js"

/** What `ignored` is told of a path whose kind is known. */
const DIRECTORY = { isDirectory: () => true }
const FILE = { isDirectory: () => false }

const codeOf = (e: unknown): string | undefined =>
  typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)))

/**
 * Native watching (`watch_mode = "native"`): one `fs.watch` (inotify, FSEvents) per directory the
 * patterns may reach. An event names an entry of its directory, and costs a lookup of that name:
 * a file that matches is a change, a directory that appeared is walked and watched (its files
 * that match are changes: they may have been written before its watch), one that went is
 * forgotten. No directory is read again for an event, so a file written many times a second
 * beside the watched ones (a log or a database in the project's root) costs next to nothing
 * (docs/watch.md). Symbolic links to directories are followed, once each.
 */
export const nativeBackend: Backend = (roots, options, on) => {
  const watchers = new Map<string, fs.FSWatcher>()
  /** The real path of each directory watched, and the one path it is watched under. */
  const real = new Map<string, string>()
  const owners = new Map<string, string>()
  let closed = false

  const forget = (dir: string) => {
    const prefix = dir + nodePath.sep
    for (const [d, watcher] of watchers)
      if (d === dir || d.startsWith(prefix)) {
        watcher.close()
        watchers.delete(d)
        const at = real.get(d)
        if (at !== undefined && owners.get(at) === d) owners.delete(at)
        real.delete(d)
      }
  }

  /** What an entry is, a link followed; undefined when it is gone. */
  const kindOf = async (path: string, dirent?: fs.Dirent): Promise<"dir" | "file" | undefined> => {
    if (dirent !== undefined && !dirent.isSymbolicLink()) return dirent.isDirectory() ? "dir" : "file"
    try {
      return (await fsAsync.stat(path)).isDirectory() ? "dir" : "file"
    } catch (e) {
      // gone, or a link to nothing: not watched (a link loop is reported: the file cannot be read)
      if (codeOf(e) === "ENOENT") return undefined
      throw e
    }
  }

  const onEvent = (dir: string) => (event: string, name: string | Buffer | null) => {
    if (closed) return
    if (name === null) return void walk(dir, true).catch(report)
    const path = nodePath.join(dir, name.toString())
    if (watchers.has(path)) {
      // a watched directory: its own entries have their watch; its name created, removed or
      // moved means another directory may stand there now (inode numbers are reused): watched
      // afresh, what it holds counted as changes
      if (event === "rename") rewatch(path)
      return
    }
    // a root itself removed (its own name, and no parent of it is watched): watched afresh if it
    // stands again
    const self = event === "rename" && roots.includes(dir) && name.toString() === nodePath.basename(dir)
    if (self && !fs.existsSync(path)) return void rewatch(dir)
    if (options.ignored(path)) return
    if (event === "change") return on.change(path)
    kindOf(path).then((kind) => {
      if (closed) return
      if (kind === "dir") {
        if (!options.ignored(path, DIRECTORY)) return walk(path, true)
      } else if (kind === undefined || !options.ignored(path, FILE)) on.change(path)
    }, report)
  }

  /** Forgets a watched directory, and watches what stands under its name now, if anything. */
  const rewatch = (dir: string) => {
    forget(dir)
    kindOf(dir)
      .then((kind) => {
        if (!closed && kind === "dir" && !options.ignored(dir, DIRECTORY)) return walk(dir, true)
      })
      .catch(report)
  }

  /** Watches `dir` and the directories below it that the patterns may reach. */
  const walk = async (dir: string, changes: boolean): Promise<void> => {
    if (closed) return
    if (!watchers.has(dir)) {
      let watcher: fs.FSWatcher
      try {
        watcher = fs.watch(dir, { persistent: false }, onEvent(dir))
      } catch (e) {
        if (codeOf(e) === "ENOENT") return
        throw e
      }
      // taken at once: a second walk of the same directory meanwhile opens no second watch
      watcher.on("error", report)
      watchers.set(dir, watcher)
      const at = await fsAsync.realpath(dir).catch(() => dir)
      // a directory watched already under another path: under its own path if it is one of
      // the two (so that a change is named as the patterns see it), else under the first
      const owner = owners.get(at)
      if (owner !== undefined) {
        if (dir !== at || owner === at) return forget(dir)
        forget(owner)
      }
      real.set(dir, at)
      owners.set(at, dir)
    }
    let entries: Array<fs.Dirent>
    try {
      entries = await fsAsync.readdirEntries(dir)
    } catch (e) {
      if (codeOf(e) === "ENOENT" || codeOf(e) === "ENOTDIR") return forget(dir)
      throw e
    }
    await Promise.all(
      entries.map(async (entry) => {
        const path = nodePath.join(dir, entry.name)
        if (options.ignored(path)) return
        const kind = await kindOf(path, entry)
        if (closed || kind === undefined) return
        if (kind === "dir") {
          if (!options.ignored(path, DIRECTORY)) await walk(path, changes)
        } else if (changes && !options.ignored(path, FILE)) on.change(path)
      }),
    )
  }

  /** Before the watcher is ready an error fails its setup; after, it is reported. */
  function report(e: unknown) {
    if (!closed) on.error(asError(e))
  }

  Promise.all(roots.map((root) => walk(root, false))).then(() => {
    if (!closed) on.ready()
  }, report)
  return {
    close: async () => {
      closed = true
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
      real.clear()
      owners.clear()
    },
  }
}
