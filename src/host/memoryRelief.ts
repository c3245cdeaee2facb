import { addonExports } from "./addon.js"
import { memoryReliefFile } from "./memoryReliefFile.js"

/**
 * V8's memory-reducing collections and glibc's malloc_trim, from dist/memory-relief.node
 * (src/host/memoryRelief.cc), for the collection at rest (src/host/restCollection.ts).
 */
export interface MemoryRelief {
  /**
   * A full collection that also gives back the free parts of V8's pages and its young
   * generation (V8's own memory reducer's kind).
   */
  readonly reduce: () => void
  /** Such collections until one frees nothing more: usually two, twice the pause. */
  readonly reduceAll: () => void
  /** malloc's free pages back to the system; true when there were any. */
  readonly trim: () => boolean
  /**
   * The pages of the bundle's source, when the launcher mapped it (src/host/mappedSource.ts), out
   * of the process's memory until a compilation reads them again; the bytes advised (0: none).
   */
  readonly evictSource: () => number
}

/**
 * The addon at `file`, or undefined when it cannot be loaded (not built: no compiler or no Node
 * headers at build time; another platform): the collection at rest is then a plain `gc()`.
 */
export const loadMemoryRelief = (file: string = memoryReliefFile): MemoryRelief | undefined => {
  const { reduce, reduceAll, trim, evictSource } = (addonExports(file) ?? {}) as Partial<MemoryRelief>
  return typeof reduce === "function" && typeof reduceAll === "function" && typeof trim === "function"
    ? // built without external strings (older Node headers): no source is mapped
      { reduce, reduceAll, trim, evictSource: typeof evictSource === "function" ? evictSource : () => 0 }
    : undefined
}
