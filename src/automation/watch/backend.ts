import type * as fs from "node:fs"

/** What a file-watching backend needs: the roots, polling or not, which paths to leave out. */
export interface BackendOptions {
  readonly poll: boolean
  readonly intervalMillis: number
  /** `stats` when the kind of the path is known (only `isDirectory` is asked). */
  readonly ignored: (path: string, stats?: Pick<fs.Stats, "isDirectory">) => boolean
}

/** What a backend reports: a file added, changed or removed; ready (set up); a failure. */
export interface BackendEvents {
  readonly change: (path: string) => void
  readonly ready: () => void
  readonly error: (error: Error) => void
}

/**
 * Starts watching `roots`; the result closes it. In the supervisor `defaultBackend` (nativeBackend.ts,
 * or chokidar's polling), a fake in tests.
 */
export type Backend = (
  roots: ReadonlyArray<string>,
  options: BackendOptions,
  on: BackendEvents,
) => { readonly close: () => Promise<void> }
