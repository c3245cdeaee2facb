/**
 * The supervisor's bundle as file pages rather than heap (dist/mapped-source.cjs, used by the
 * launcher for `supervisor run`). V8 keeps a script's source for the script's life, to compile
 * each function at its first call: read into a string, dist/host.cjs is ~0.9 MiB of the
 * supervisor's heap for good. Here it is written, wrapped as Node wraps a module, into a file of
 * the supervisor's own in its state directory, unlinked at once (nothing can change it, nothing
 * is left behind), and mapped by dist/memory-relief.node as an external string: its pages are
 * the file's, which the collection at rest gives back (`evictSource`) and the kernel reads again
 * when a function is compiled. Undefined whenever that cannot be done (no addon, a bundle that is
 * not ASCII, a state directory in memory or not writable, `SUPERVISOR_MAPPED_SOURCE=0`): the
 * launcher then reads the bundle into the heap as before. docs/benchmarks.md has the figures.
 */
import { isAscii } from "node:buffer"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { stateDir } from "../state/paths.js"
import { addonExports } from "./addon.js"

type Env = Readonly<Record<string, string | undefined>>

const PAGE = 4096

/** What the addon gives for this (src/host/memoryRelief.cc). */
export interface SourceMapper {
  readonly mapSource: (fd: number) => string
}

/** Filesystems whose files are memory: a copy there would cost as much as the heap's string. */
const IN_MEMORY = new Set([
  0x01021994, // tmpfs
  0x858458f6, // ramfs
])

/** The addon next to the bundle, when it was built with external strings (Node 20.4 and later). */
export const loadSourceMapper = (addon: string): SourceMapper | undefined => {
  const { mapSource } = (addonExports(addon) ?? {}) as Partial<SourceMapper>
  return typeof mapSource === "function" ? { mapSource } : undefined
}

export interface MappedSourceOptions {
  readonly env: Env
  readonly mapper: SourceMapper | undefined
  /** The filesystem type of a directory (`statfs`'s `f_type`). */
  readonly fsType?: (dir: string) => number
}

/** `file` wrapped in `wrapper` (Node's module wrapper), mapped from a private copy; else undefined. */
export const mappedSource = (
  file: string,
  wrapper: readonly [string, string],
  { env, mapper, fsType = (dir) => fs.statfsSync(dir).type }: MappedSourceOptions,
): string | undefined => {
  if (mapper === undefined || env.SUPERVISOR_MAPPED_SOURCE === "0") return undefined
  let fd: number | undefined
  try {
    const body = fs.readFileSync(file)
    // one byte a character: what a Latin-1 string of the file's bytes reads as the bundle
    if (!isAscii(body)) return undefined
    const dir = stateDir(env)
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    if (IN_MEMORY.has(fsType(dir))) return undefined
    const copy = nodePath.join(dir, `.source-${process.pid}.cjs`)
    // left by a process of the same pid that died between the two calls below
    fs.rmSync(copy, { force: true })
    fd = fs.openSync(copy, "wx+", 0o600)
    fs.unlinkSync(copy)
    // A page at a time: written at once, the kernel may cache it in large folios (512 KiB here),
    // each mapped whole at the first read of one byte of it; pages, only what a read needs (with
    // the kernel's fault-around, 64 KiB): ~0.1 MiB at rest rather than the whole file.
    const copied = Buffer.concat([Buffer.from(wrapper[0]), body, Buffer.from(wrapper[1])])
    for (let at = 0; at < copied.length; at += PAGE)
      fs.writeSync(fd, copied, at, Math.min(PAGE, copied.length - at))
    return mapper.mapSource(fd)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
