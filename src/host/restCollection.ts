import type { IncomingMessage, Server, ServerResponse } from "node:http"
import * as v8 from "node:v8"
import { loadMemoryRelief, type MemoryRelief } from "./memoryRelief.js"

/**
 * A full collection once the socket has been quiet for a moment after a burst (a start of 50
 * daemons, a round of listings): the burst's garbage goes, and the old generation's pages with it
 * (`--compact-on-every-full-gc`, src/host/nodeFlags.ts). V8's own memory reducer does this only
 * after seconds of idleness, so until then a supervisor at rest held 5-15 MiB of a burst's dead
 * objects (docs/benchmarks.md, memory per subsystem). It never runs while a request younger than
 * `streamMs` is open (an older one is a stream: logs, events). Needs `--expose-gc` (the
 * background supervisor's flags); without it nothing is hooked.
 *
 * The collection after a burst that grew the heap by `growthBytes` (`SUPERVISOR_REST_COLLECTION`,
 * `restCollectionSetting`) also drops the compiled code of every function not running (V8's
 * `--stress-flush-code`, set for it alone): the bytecode of the modules' set-up, of the last
 * burst and of what ran once, ~2 MiB of heap. The next burst compiles again what it runs: a
 * start of 50 takes ~20 ms more of the main thread. After a smaller burst (a listing, a shell
 * hook's `cd`) the quiet moment gets a collection that keeps the code (`tidy`), and the one that
 * flushes it waits until the socket has been quiet for `settleMs`: commands a few seconds apart
 * do not each compile again what a flush dropped, and a supervisor left alone still gives that
 * code back. While requests keep coming, the pending flush's timer stands in for the quiet
 * check, so the collection keeping code runs at most once in `settleMs`.
 *
 * Where the build made dist/memory-relief.node, both run in V8's memory-reducing mode and are
 * followed by malloc_trim (`collection`): the free parts of V8's pages, its young generation and
 * malloc's free pages go back at once, not when V8's memory reducer runs seconds later (~2.5 MiB
 * less resident right after a burst). The collection keeping code is one such collection (~40
 * ms of the main thread), the one flushing it runs them until one frees nothing more (~80 ms).
 */
export interface RestCollectionOptions {
  readonly quietMs: number
  readonly growthBytes: number
  readonly streamMs: number
  readonly settleMs: number
  /** The collection that flushes code (undefined: nothing is hooked). */
  readonly gc: (() => void) | undefined
  /** The one that keeps it, after a smaller burst. */
  readonly tidy: () => void
  readonly heapUsed: () => number
}

/**
 * A full collection that flushes the code of functions not running. A plain `gc()` flushes none
 * (in a bare `node --expose-gc`, 3,000 functions run once kept their bytecode through seven).
 */
export const collectingCode =
  (gc: () => void, setFlags: (flags: string) => void): (() => void) =>
  () => {
    setFlags("--stress-flush-code")
    try {
      gc()
    } finally {
      setFlags("--no-stress-flush-code")
    }
  }

/**
 * The collection itself: in V8's memory-reducing mode, then malloc_trim, where `relief()` gives
 * dist/memory-relief.node (src/host/memoryRelief.ts; `thorough`: until one frees nothing more),
 * else `gc()`; undefined without `--expose-gc`.
 */
export const collection = (
  gc: (() => void) | undefined,
  thorough: boolean,
  relief: () => MemoryRelief | undefined,
): (() => void) | undefined => {
  if (gc === undefined) return undefined
  return () => {
    const r = relief()
    if (r === undefined) return gc()
    if (thorough) r.reduceAll()
    else r.reduce()
    r.trim()
  }
}

/** The addon, loaded at the first collection. */
const reliefOnce = (): (() => MemoryRelief | undefined) => {
  // null: not loaded yet
  let relief: MemoryRelief | undefined | null = null
  return () => {
    if (relief === null) relief = loadMemoryRelief()
    return relief
  }
}

const defaults = (): RestCollectionOptions => {
  const gc = (globalThis as { readonly gc?: () => void }).gc
  const relief = reliefOnce()
  const flushing = collection(gc, true, relief)
  const tidy = collection(gc, false, relief)
  return {
    quietMs: 300,
    growthBytes: 4 * 1024 * 1024,
    streamMs: 2_000,
    settleMs: 5_000,
    // `v8` is loaded at the first collection (scripts/lazy-modules.mjs)
    gc: flushing && collectingCode(flushing, (flags) => v8.setFlagsFromString(flags)),
    tidy: () => tidy?.(),
    heapUsed: () => process.memoryUsage().heapUsed,
  }
}

/**
 * `SUPERVISOR_REST_COLLECTION`: the heap growth in MiB after which a quiet socket calls for a
 * collection (default 4), `0` for one after every burst, `off` for none. A value that is none of
 * these keeps the default and says so in `warning`.
 */
export const restCollectionSetting = (
  value: string | undefined,
): { readonly options: Partial<RestCollectionOptions>; readonly warning?: string } => {
  if (value === undefined || value === "") return { options: {} }
  if (value === "off") return { options: { gc: undefined } }
  if (/^\d+(\.\d+)?$/.test(value))
    return { options: { growthBytes: Math.round(Number(value) * 1024 * 1024) } }
  return {
    options: {},
    warning: `SUPERVISOR_REST_COLLECTION=${value}: expected a number of MiB (0 for every burst) or 'off' (4 is used)`,
  }
}

export const collectAtRest = (server: Server, overrides: Partial<RestCollectionOptions> = {}): Server => {
  const o = { ...defaults(), ...overrides }
  const gc = o.gc
  if (gc === undefined) return server
  const open = new Map<ServerResponse, number>()
  let base = o.heapUsed()
  let last = 0
  // a request came since the last collection that flushed code; since the last tidy one
  let sinceFlush = false
  let sinceTidy = false
  let timer: ReturnType<typeof setTimeout> | undefined
  const arm = (ms: number) => {
    timer = setTimeout(check, ms)
    timer.unref()
  }
  const check = () => {
    timer = undefined
    const now = performance.now()
    const busyUntil = Math.max(
      last + o.quietMs,
      ...[...open.values()].filter((t) => now - t < o.streamMs).map((t) => t + o.streamMs),
    )
    if (busyUntil > now) return arm(Math.min(busyUntil - now, o.quietMs))
    if (o.growthBytes > 0 && o.heapUsed() - base < o.growthBytes) {
      if (!sinceFlush) return
      if (last + o.settleMs > now) {
        if (sinceTidy) {
          o.tidy()
          sinceTidy = false
        }
        return arm(last + o.settleMs - now)
      }
    }
    gc()
    base = o.heapUsed()
    sinceFlush = false
    sinceTidy = false
  }
  const touch = () => {
    last = performance.now()
    sinceFlush = true
    sinceTidy = true
    if (timer === undefined) arm(o.quietMs)
  }
  server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
    open.set(res, performance.now())
    touch()
    res.once("close", () => {
      open.delete(res)
      touch()
    })
  })
  return server
}
