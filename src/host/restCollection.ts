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
 * After a burst that grew the heap by `growthBytes` (`SUPERVISOR_REST_COLLECTION`,
 * `restCollectionSetting`) the quiet moment gets a thorough collection (`gc`); after a smaller
 * one (a listing, a shell hook's `cd`), a single one (`tidy`), at most one in `tidyGapMs` (a burst
 * inside that gap gets its own once the gap is over, so none is left holding its garbage). Both
 * keep the compiled code. Once the socket has answered nothing for `ageMs` (10 s), one (`age`)
 * drops the code of the functions that ran in none of the last `oldAge` full collections (V8's
 * bytecode ageing, its threshold lowered for that collection alone): the modules' set-up and
 * what earlier commands ran, ~1.5-2 MiB of heap with 50 daemons, not what the last burst ran, so
 * the next command costs no more CPU (docs/benchmarks.md). It and the flush also let Effect's
 * compiled parsers go (`withoutParsers`: ~0.6 MiB more; each schema's next decode or encode
 * compiles its parser again, in no time a start or stop of 50 shows). Once it has answered
 * nothing for `settleMs` (a minute), one more (`flush`) drops the code of every function not
 * running (`--stress-flush-code`): the next command compiles again what it runs, ~50% more CPU
 * for a start of 50 and twice as much for a stop; commands less than a minute apart do not pay it,
 * and a supervisor left alone still gives that code back.
 *
 * Where the build made dist/memory-relief.node, the collections run in V8's memory-reducing mode
 * and are followed by malloc_trim (`collection`): the free parts of V8's pages, its young
 * generation and malloc's free pages go back at once, not when V8's memory reducer runs seconds
 * later (~2.5 MiB less resident right after a burst); so do the pages of the bundle's source
 * where the launcher mapped it (src/host/mappedSource.ts, ~0.9 MiB). `tidy` is one such
 * collection (~40 ms of the main thread), `gc` and `flush` run them until one frees nothing more
 * (~80 ms).
 */
export interface RestCollectionOptions {
  readonly quietMs: number
  readonly growthBytes: number
  readonly streamMs: number
  readonly settleMs: number
  /** The quiet before `age`. */
  readonly ageMs: number
  /** The least time between two `tidy` collections. */
  readonly tidyGapMs: number
  /** The collection after a burst that grew the heap (undefined: nothing is hooked). */
  readonly gc: (() => void) | undefined
  /** The one after a smaller burst. */
  readonly tidy: () => void
  /** The one that drops the code not run lately, once the socket has been quiet for `ageMs`. */
  readonly age: () => void
  /** The one that drops all compiled code, once the socket has been quiet for `settleMs`. */
  readonly flush: () => void
  readonly heapUsed: () => number
}

/** How many full collections a function's bytecode outlives unrun before `age` drops it. */
export const oldAge = 3

/**
 * V8's own threshold (`--bytecode-old-age`, 5 unless the supervisor's command line sets it), put
 * back after the `age` collection.
 */
export const defaultOldAge = (execArgv: ReadonlyArray<string>): number => {
  const given = execArgv.findLast((a) => a.startsWith("--bytecode-old-age="))
  const n = given === undefined ? Number.NaN : Number(given.slice("--bytecode-old-age=".length))
  return Number.isInteger(n) && n > 0 ? n : 5
}

/**
 * A full collection that drops the bytecode of the functions that ran in none of the last
 * `age` full collections: V8 ages each function's bytecode by one at every full collection and
 * makes it young again when it runs; the threshold is lowered for this collection alone.
 */
export const collectingOldCode =
  (gc: () => void, setFlags: (flags: string) => void, age: number, restore: number): (() => void) =>
  () => {
    setFlags(`--bytecode-old-age=${age}`)
    try {
      gc()
    } finally {
      setFlags(`--bytecode-old-age=${restore}`)
    }
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
    r.evictSource()
  }
}

/**
 * `collect` after Effect's compiled parsers are let go (scripts/droppable-parsers.mjs, in the
 * supervisor's bundle; absent elsewhere): the next decode or encode of each schema compiles its
 * parser again.
 */
export const withoutParsers = (collect: () => void, drop: unknown) => () => {
  if (typeof drop === "function") drop()
  collect()
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
  const thorough = collection(gc, true, relief)
  const tidy = collection(gc, false, relief)
  // `v8` is loaded at the first flush (scripts/lazy-modules.mjs)
  const setFlags = (flags: string) => v8.setFlagsFromString(flags)
  const drop = Reflect.get(globalThis, Symbol.for("supervisor/dropCompiledParsers"))
  const flush = thorough && withoutParsers(collectingCode(thorough, setFlags), drop)
  // one collection, so that `oldAge` counts the collections a function went unrun
  const age =
    tidy && withoutParsers(collectingOldCode(tidy, setFlags, oldAge, defaultOldAge(process.execArgv)), drop)
  return {
    quietMs: 300,
    growthBytes: 4 * 1024 * 1024,
    streamMs: 2_000,
    settleMs: 60_000,
    ageMs: 10_000,
    tidyGapMs: 5_000,
    gc: thorough,
    tidy: () => tidy?.(),
    age: () => age?.(),
    flush: () => flush?.(),
    heapUsed: () => process.memoryUsage().heapUsed,
  }
}

/**
 * `SUPERVISOR_REST_COLLECTION`: the heap growth in MiB after which a quiet socket calls for a
 * thorough collection (default 4), `0` for one after every burst, `off` for no collection at all;
 * after a comma, the seconds of quiet before the one that drops all code (default 60), and after
 * another, before the one that drops the code not run lately (default 10): `4,60,10`. A value
 * that is none of these keeps the defaults and says so in `warning`.
 */
export const restCollectionSetting = (
  value: string | undefined,
): { readonly options: Partial<RestCollectionOptions>; readonly warning?: string } => {
  if (value === undefined || value === "") return { options: {} }
  if (value === "off") return { options: { gc: undefined } }
  const parts = /^(\d+(?:\.\d+)?)(?:,(\d+(?:\.\d+)?)(?:,(\d+(?:\.\d+)?))?)?$/.exec(value)
  if (parts !== null) {
    const ms = (seconds: string | undefined) =>
      seconds === undefined ? undefined : Math.round(Number(seconds) * 1000)
    const settleMs = ms(parts[2])
    const ageMs = ms(parts[3])
    return {
      options: {
        growthBytes: Math.round(Number(parts[1]) * 1024 * 1024),
        ...(settleMs === undefined ? {} : { settleMs }),
        ...(ageMs === undefined ? {} : { ageMs }),
      },
    }
  }
  return {
    options: {},
    warning: `SUPERVISOR_REST_COLLECTION=${value}: expected a number of MiB (0 for every burst), then optionally a comma and the seconds before all code is dropped, and another and the seconds before the code not run lately is, or 'off' (4,60,10 is used)`,
  }
}

export const collectAtRest = (server: Server, overrides: Partial<RestCollectionOptions> = {}): Server => {
  const o = { ...defaults(), ...overrides }
  const gc = o.gc
  if (gc === undefined) return server
  const open = new Map<ServerResponse, number>()
  let base = o.heapUsed()
  let last = 0
  let lastTidy = Number.NEGATIVE_INFINITY
  // a request came since the last flush; since the last ageing one; since the last quiet moment's collection
  let sinceFlush = false
  let sinceAge = false
  let sinceBurst = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let dueAt = 0
  const arm = (ms: number) => {
    if (timer !== undefined) clearTimeout(timer)
    dueAt = performance.now() + ms
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
    if (sinceBurst) {
      if (o.growthBytes === 0 || o.heapUsed() - base >= o.growthBytes) {
        gc()
        base = o.heapUsed()
      } else if (now - lastTidy >= o.tidyGapMs) {
        o.tidy()
        lastTidy = now
      } else {
        // too soon after the last one: this burst's garbage is collected once the gap is over,
        // if the socket is still quiet then (else at the next quiet moment after that)
        return arm(lastTidy + o.tidyGapMs - now)
      }
      sinceBurst = false
    }
    // the flush drops all that the ageing one would, so a due flush stands for both
    if (sinceFlush && last + o.settleMs <= now) {
      o.flush()
      sinceFlush = false
      sinceAge = false
      base = o.heapUsed()
    } else if (sinceAge && last + o.ageMs <= now) {
      o.age()
      sinceAge = false
      base = o.heapUsed()
    }
    const due = Math.min(
      sinceAge ? last + o.ageMs : Number.POSITIVE_INFINITY,
      sinceFlush ? last + o.settleMs : Number.POSITIVE_INFINITY,
    )
    if (due !== Number.POSITIVE_INFINITY) arm(due - now)
  }
  const touch = () => {
    last = performance.now()
    sinceFlush = true
    sinceAge = true
    sinceBurst = true
    // the quiet check comes first, also when the flush's later one is armed
    if (timer === undefined || dueAt > last + o.quietMs) arm(o.quietMs)
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
