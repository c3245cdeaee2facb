/**
 * src/host/restCollection.ts: a full collection once the socket is quiet after a burst that grew
 * the heap; none while a young request is open, none without growth, nothing hooked without
 * `gc`. A real HTTP server on a loopback port; the collector and the heap figure are fakes.
 */
import { createServer, request, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import {
  collectAtRest,
  collectingCode,
  collectingOldCode,
  collection,
  defaultOldAge,
  type RestCollectionOptions,
  restCollectionSetting,
  withoutParsers,
} from "../../src/host/restCollection.js"
import { waitFor } from "../e2e/harness.js"

const MiB = 1024 * 1024
let servers: Array<Server> = []
afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
  servers = []
})

const setup = async (options: Partial<RestCollectionOptions> = {}) => {
  const held: Array<ServerResponse> = []
  const fake = {
    heap: 0,
    reads: 0,
    collections: 0,
    tidies: 0,
    flushes: 0,
    flushedAt: [] as Array<number>,
    ages: 0,
    agedAt: [] as Array<number>,
  }
  const server = collectAtRest(
    createServer((req, res) => {
      if (req.url === "/hold") held.push(res)
      else res.end("ok")
    }),
    {
      quietMs: 40,
      growthBytes: 4 * MiB,
      streamMs: 60_000,
      settleMs: 60_000,
      ageMs: 60_000,
      tidyGapMs: 0,
      tidy: () => {
        fake.tidies++
      },
      gc: () => {
        fake.collections++
        fake.heap = 0
      },
      age: () => {
        fake.ages++
        fake.agedAt.push(performance.now())
      },
      flush: () => {
        fake.flushes++
        fake.flushedAt.push(performance.now())
        fake.heap = 0
      },
      heapUsed: () => {
        fake.reads++
        return fake.heap
      },
      ...options,
    },
  )
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  const port = (server.address() as AddressInfo).port
  const get = (path = "/") =>
    new Promise<void>((resolve, reject) => {
      request({ port, host: "127.0.0.1", path, agent: false }, (res) => {
        res.resume()
        res.on("end", resolve)
      })
        .on("error", reject)
        .end()
    })
  /** Resolves once the collector has looked at the heap again (a quiet check ran). */
  const nextCheck = async () => {
    const reads = fake.reads
    await waitFor("a check of the heap", () => fake.reads > reads)
  }
  return { fake, get, held, nextCheck }
}

describe("collectAtRest", () => {
  it("collects once after a burst that grew the heap, then not again without growth", async () => {
    const { fake, get, nextCheck } = await setup()
    // the burst's first requests leave the heap under the threshold (a check between them, on a
    // slow machine, finds nothing to do); the last one grows it past
    for (let i = 0; i < 4; i++) await get()
    fake.heap = 10 * MiB
    await get()
    await waitFor("the collection", () => fake.collections === 1)
    await get()
    await nextCheck()
    expect(fake.collections).toBe(1)
  })

  it("does not collect at the quiet check when the heap grew less than the threshold", async () => {
    const { fake, get, nextCheck } = await setup()
    fake.heap = 3 * MiB
    await get()
    await nextCheck()
    expect(fake.collections).toBe(0)
  })

  it("waits while a young request is open, and collects once it closes", async () => {
    const { fake, get, held, nextCheck } = await setup()
    fake.heap = 10 * MiB
    const open = get("/hold")
    await waitFor("the held request", () => held.length === 1)
    await get()
    // several quiet periods pass with the request open: nothing is collected or even read
    const reads = fake.reads
    await new Promise((r) => setTimeout(r, 200))
    expect(fake.collections).toBe(0)
    expect(fake.reads).toBe(reads)
    held[0]!.end("done")
    await open
    await waitFor("the collection", () => fake.collections === 1)
    await get()
    await nextCheck()
    expect(fake.collections).toBe(1)
  })

  it("an open request older than streamMs (a stream) does not hold it back", async () => {
    const { fake, get, held } = await setup({ streamMs: 100 })
    fake.heap = 10 * MiB
    void get("/hold").catch(() => {})
    await waitFor("the held request", () => held.length === 1)
    await waitFor("the collection", () => fake.collections === 1)
    expect(held[0]!.writableEnded).toBe(false)
  })

  it("hooks nothing without gc (a supervisor run without --expose-gc)", () => {
    const server = createServer()
    collectAtRest(server, { gc: undefined })
    expect(server.listenerCount("request")).toBe(0)
    collectAtRest(server, { gc: () => {} })
    expect(server.listenerCount("request")).toBe(1)
  })

  it("after a smaller burst: a collection keeping the code when quiet, the flushing one after settleMs", async () => {
    const { fake, get } = await setup({ settleMs: 300 })
    fake.heap = 2 * MiB
    await get()
    await waitFor("the tidy collection", () => fake.tidies === 1)
    expect(fake.flushes).toBe(0)
    // a later request pushes the flushing one back, and gets a tidy one of its own
    const lastSent = performance.now()
    await get()
    await waitFor("the second tidy collection", () => fake.tidies === 2)
    await waitFor("the flushing collection", () => fake.flushes === 1)
    // a timer never fires early; Node rounds its due time to the millisecond
    expect((fake.flushedAt[0] as number) - lastSent).toBeGreaterThanOrEqual(300 - 1)
    expect(fake.tidies).toBe(2)
    expect(fake.collections).toBe(0)
  })

  it("after a burst that grew the heap: the thorough collection keeps the code, the flush comes after settleMs", async () => {
    const { fake, get } = await setup({ settleMs: 400 })
    fake.heap = 10 * MiB
    await get()
    await waitFor("the collection", () => fake.collections === 1)
    expect(fake.flushes).toBe(0)
    await waitFor("the flushing collection", () => fake.flushes === 1)
    expect(fake.collections).toBe(1)
    expect(fake.tidies).toBe(0)
  })

  it("after ageMs of quiet, the collection dropping the code not run lately; after settleMs, all code", async () => {
    const { fake, get } = await setup({ ageMs: 200, settleMs: 500 })
    fake.heap = 1 * MiB
    const lastSent = performance.now()
    await get()
    await waitFor("the ageing collection", () => fake.ages === 1)
    expect(fake.flushes).toBe(0)
    expect(fake.tidies).toBe(1)
    await waitFor("the flushing collection", () => fake.flushes === 1)
    // a timer never fires early; Node rounds its due time to the millisecond
    expect((fake.agedAt[0] as number) - lastSent).toBeGreaterThanOrEqual(200 - 1)
    expect((fake.flushedAt[0] as number) - lastSent).toBeGreaterThanOrEqual(500 - 1)
    expect(fake.ages).toBe(1)
  })

  it("each burst gets its ageing collection; a flush due at the same time stands for both", async () => {
    const { fake, get } = await setup({ ageMs: 150 })
    await get()
    await waitFor("the first ageing collection", () => fake.ages === 1)
    await get()
    await waitFor("the second ageing collection", () => fake.ages === 2)
    const both = await setup({ ageMs: 300, settleMs: 300 })
    await both.get()
    await waitFor("the flushing collection", () => both.fake.flushes === 1)
    await both.get()
    await waitFor("the next flushing collection", () => both.fake.flushes === 2)
    expect(both.fake.ages).toBe(0)
  })

  it("a burst while the flush waits gets its quiet moment's collection all the same", async () => {
    const { fake, get, nextCheck } = await setup()
    fake.heap = 1 * MiB
    await get()
    await waitFor("the tidy collection", () => fake.tidies === 1)
    // the flush's check is armed a minute away; a burst that grows the heap is collected now
    fake.heap = 10 * MiB
    await get()
    await waitFor("the collection", () => fake.collections === 1)
    await get()
    await nextCheck()
    expect(fake.flushes).toBe(0)
  })

  it("at most one tidy collection in tidyGapMs", async () => {
    const { fake, get, nextCheck } = await setup({ tidyGapMs: 60_000 })
    fake.heap = 1 * MiB
    await get()
    await waitFor("the tidy collection", () => fake.tidies === 1)
    await get()
    await nextCheck()
    await get()
    await nextCheck()
    expect(fake.tidies).toBe(1)
  })

  it("a burst inside tidyGapMs gets its tidy collection once the gap is over", async () => {
    const tidiedAt: Array<number> = []
    const { fake, get } = await setup({ tidyGapMs: 300, tidy: () => tidiedAt.push(performance.now()) })
    fake.heap = 1 * MiB
    await get()
    await waitFor("the first tidy collection", () => tidiedAt.length === 1)
    await get()
    await waitFor("the second burst's tidy collection", () => tidiedAt.length === 2)
    // a timer never fires early; Node rounds its due time to the millisecond
    expect((tidiedAt[1] as number) - (tidiedAt[0] as number)).toBeGreaterThanOrEqual(300 - 1)
    expect(fake.collections).toBe(0)
    expect(fake.flushes).toBe(0)
  })

  it("a young open request holds the tidy collection back; one tidy collection a burst", async () => {
    const { fake, get, held } = await setup({ settleMs: 300 })
    fake.heap = 1 * MiB
    // several quiet periods pass with the request open: no tidy collection
    const open = get("/hold")
    await waitFor("the held request", () => held.length === 1)
    await get()
    await new Promise((r) => setTimeout(r, 150))
    expect(fake.tidies).toBe(0)
    held[0]!.end("done")
    await open
    await waitFor("the flushing collection", () => fake.flushes === 1)
    expect(fake.tidies).toBe(1)
    fake.heap = 2 * MiB
    await get()
    await waitFor("the next flushing collection", () => fake.flushes === 2)
    expect(fake.tidies).toBe(2)
  })

  it("with a growth of 0, collects after every burst, grown or not", async () => {
    const { fake, get } = await setup({ growthBytes: 0 })
    await get()
    await waitFor("the first collection", () => fake.collections === 1)
    await get()
    await waitFor("the second collection", () => fake.collections === 2)
  })
})

describe("collectingCode", () => {
  it("flushes code for that collection only, also when the collection throws", () => {
    const calls: Array<string> = []
    const setFlags = (flags: string) => calls.push(flags)
    collectingCode(() => calls.push("gc"), setFlags)()
    expect(calls).toEqual(["--stress-flush-code", "gc", "--no-stress-flush-code"])
    calls.length = 0
    const failing = collectingCode(() => {
      calls.push("gc")
      throw new Error("boom")
    }, setFlags)
    expect(failing).toThrow("boom")
    expect(calls).toEqual(["--stress-flush-code", "gc", "--no-stress-flush-code"])
  })
})

describe("collectingOldCode", () => {
  it("lowers V8's bytecode age threshold for that collection only, also when the collection throws", () => {
    const calls: Array<string> = []
    const setFlags = (flags: string) => calls.push(flags)
    collectingOldCode(() => calls.push("gc"), setFlags, 3, 5)()
    expect(calls).toEqual(["--bytecode-old-age=3", "gc", "--bytecode-old-age=5"])
    calls.length = 0
    const failing = collectingOldCode(
      () => {
        calls.push("gc")
        throw new Error("boom")
      },
      setFlags,
      2,
      7,
    )
    expect(failing).toThrow("boom")
    expect(calls).toEqual(["--bytecode-old-age=2", "gc", "--bytecode-old-age=7"])
  })

  it("puts back the threshold the command line gave, else V8's 5", () => {
    expect(defaultOldAge([])).toBe(5)
    expect(defaultOldAge(["--expose-gc", "--bytecode-old-age=7"])).toBe(7)
    expect(defaultOldAge(["--bytecode-old-age=2", "--bytecode-old-age=6"])).toBe(6)
    expect(defaultOldAge(["--bytecode-old-age=soon"])).toBe(5)
    expect(defaultOldAge(["--bytecode-old-age=0"])).toBe(5)
  })
})

describe("withoutParsers", () => {
  it("lets Effect's compiled parsers go before the collection, where the bundle has the hook", () => {
    const calls: Array<string> = []
    withoutParsers(
      () => calls.push("collect"),
      () => calls.push("drop"),
    )()
    expect(calls).toEqual(["drop", "collect"])
    calls.length = 0
    withoutParsers(() => calls.push("collect"), undefined)()
    expect(calls).toEqual(["collect"])
  })
})

describe("collection", () => {
  const fakeRelief = (calls: Array<string>) => ({
    reduce: () => void calls.push("reduce"),
    reduceAll: () => void calls.push("reduceAll"),
    trim: () => calls.push("trim") > 0,
    evictSource: () => calls.push("evictSource"),
  })
  it("in V8's memory-reducing mode then malloc_trim and the source's pages out where the addon loads; thorough: until nothing more is freed", () => {
    const calls: Array<string> = []
    const gc = () => void calls.push("gc")
    collection(gc, false, () => fakeRelief(calls))?.()
    expect(calls).toEqual(["reduce", "trim", "evictSource"])
    calls.length = 0
    collection(gc, true, () => fakeRelief(calls))?.()
    expect(calls).toEqual(["reduceAll", "trim", "evictSource"])
  })

  it("gc() where the addon was not built; nothing without gc", () => {
    const calls: Array<string> = []
    collection(
      () => void calls.push("gc"),
      true,
      () => undefined,
    )?.()
    collection(
      () => void calls.push("gc"),
      false,
      () => undefined,
    )?.()
    expect(calls).toEqual(["gc", "gc"])
    expect(collection(undefined, true, () => fakeRelief(calls))).toBeUndefined()
  })
})

describe("SUPERVISOR_REST_COLLECTION", () => {
  it("is MiB of growth, 0 for every burst, then seconds before the flush and before the ageing collection; off for none; anything else keeps the defaults and says so", () => {
    expect(restCollectionSetting(undefined)).toEqual({ options: {} })
    expect(restCollectionSetting("")).toEqual({ options: {} })
    expect(restCollectionSetting("8")).toEqual({ options: { growthBytes: 8 * MiB } })
    expect(restCollectionSetting("0.5")).toEqual({ options: { growthBytes: MiB / 2 } })
    expect(restCollectionSetting("0")).toEqual({ options: { growthBytes: 0 } })
    expect(restCollectionSetting("4,60")).toEqual({ options: { growthBytes: 4 * MiB, settleMs: 60_000 } })
    expect(restCollectionSetting("0,1.5")).toEqual({ options: { growthBytes: 0, settleMs: 1_500 } })
    expect(restCollectionSetting("4,60,10")).toEqual({
      options: { growthBytes: 4 * MiB, settleMs: 60_000, ageMs: 10_000 },
    })
    expect(restCollectionSetting("off")).toEqual({ options: { gc: undefined } })
    for (const bad of ["-1", "lots", "4MiB", "1e3", "4,", ",60", "4,-1", "4,60,", "4,,10", "4,60,10,1"])
      expect(restCollectionSetting(bad)).toEqual({
        options: {},
        warning: `SUPERVISOR_REST_COLLECTION=${bad}: expected a number of MiB (0 for every burst), then optionally a comma and the seconds before all code is dropped, and another and the seconds before the code not run lately is, or 'off' (4,60,10 is used)`,
      })
  })
})
