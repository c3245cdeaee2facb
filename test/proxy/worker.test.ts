/**
 * The proxy's worker thread (dist/proxy-worker.cjs, built by `npm test` before the suite) driven
 * through its port as the supervisor drives it: slugs asked of the supervisor once and kept until
 * it says to forget them, a failure answered as a page, the port freed when it stops accepting,
 * and the connections ended when it closes.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Worker } from "node:worker_threads"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { failure } from "../../src/proxy/pages.js"
import { proxyWorkerFile } from "../../src/proxy/worker/file.js"
import type { FromWorker, ToWorker, WorkerSetup } from "../../src/proxy/worker/protocol.js"
import { freePort, httpAnswer, waitFor } from "../e2e/harness.js"

/** Two daemons that say which they are. */
const daemons = ["one", "two"].map((name) => http.createServer((req, res) => res.end(`${name} ${req.url}`)))
const ports: number[] = []

beforeAll(async () => {
  for (const d of daemons) {
    await new Promise<void>((done) => d.listen(0, "127.0.0.1", done))
    ports.push((d.address() as AddressInfo).port)
  }
})
afterAll(() => {
  for (const d of daemons) d.close()
})

/** A worker with a supervisor side that answers `shop` with both daemons and any other slug with a 404. */
const startWorker = async (port: number) => {
  const setup: WorkerSetup = {
    https: false,
    host: "127.0.0.1",
    port,
    tld: "localhost",
    stateDir: "/nonexistent",
    responseTimeout: 10_000,
    idleTimeout: 5_000,
  }
  const worker = new Worker(proxyWorkerFile, { workerData: setup })
  const asked: Array<string> = []
  const seen: Array<FromWorker["_tag"]> = []
  const send = (m: ToWorker) => worker.postMessage(m)
  worker.on("message", (m: FromWorker) => {
    seen.push(m._tag)
    if (m._tag !== "Resolve") return
    asked.push(m.worktree === undefined ? m.slug : `${m.worktree}.${m.slug}`)
    if (m.slug === "shop")
      send({
        _tag: "Resolved",
        id: m.id,
        targets: ports.map((p) => ({ _tag: "Target", port: p })),
        failure: undefined,
        cacheable: true,
      })
    else
      send({
        _tag: "Resolved",
        id: m.id,
        targets: undefined,
        failure: failure(404, "Not Found", [`No slug ${m.slug} is configured.`]),
        cacheable: false,
      })
  })
  const exited = new Promise<number>((done) => worker.once("exit", done))
  await waitFor("the worker listening", () => seen.includes("Listening") || seen.includes("NotStarted"))
  return { worker, asked, seen, send, exited }
}

const get = (port: number, host: string, path = "/") =>
  httpAnswer({ host: "127.0.0.1", port, path, headers: { host }, agent: false })

describe("the proxy's worker thread", () => {
  it("asks for a slug once, takes its daemons in turn, forgets when told, answers failures", async () => {
    const port = await freePort()
    const w = await startWorker(port)
    try {
      expect(w.seen).toEqual(["Listening"])
      const bodies = []
      for (let i = 0; i < 4; i++) bodies.push((await get(port, "shop.localhost", `/${i}`)).body)
      expect(bodies).toEqual(["one /0", "two /1", "one /2", "two /3"])
      expect(w.asked).toEqual(["shop"])
      // a worktree's host is its own slug to resolve
      expect((await get(port, "feature.shop.localhost")).body).toMatch(/^(one|two) \/$/)
      expect(w.asked).toEqual(["shop", "feature.shop"])
      // a change in the supervisor: the next request asks again
      w.send({ _tag: "Forget" })
      await waitFor("the slug asked again", async () => {
        await get(port, "shop.localhost")
        return w.asked.filter((s) => s === "shop").length === 2
      })
      const missing = await get(port, "nope.localhost")
      expect(missing.status).toBe(404)
      expect(missing.body).toContain("No slug nope is configured.")
      // failures are not kept: asked at each request
      await get(port, "nope.localhost")
      expect(w.asked.filter((s) => s === "nope")).toHaveLength(2)
    } finally {
      w.send({ _tag: "Close" })
      await w.exited
    }
    expect(w.seen.at(-1)).toBe("Closed")
  })

  it("frees its port when it stops accepting; an open connection finishes, then it says it is closed", async () => {
    const port = await freePort()
    const w = await startWorker(port)
    // a kept-alive connection, open across the stop
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const viaAgent = () =>
      httpAnswer({ host: "127.0.0.1", port, path: "/kept", headers: { host: "shop.localhost" }, agent })
    expect((await viaAgent()).status).toBe(200)
    w.send({ _tag: "StopAccepting" })
    await waitFor("the port freed", () => w.seen.includes("NotAccepting"))
    // another listener takes the port at once
    const next = await startWorker(port)
    expect(next.seen).toEqual(["Listening"])
    expect((await get(port, "shop.localhost")).status).toBe(200)
    agent.destroy()
    await waitFor("the first worker closed", () => w.seen.includes("Closed"))
    expect(await w.exited).toBe(0)
    next.send({ _tag: "Close" })
    await next.exited
  })

  it("says why when the port is taken, and ends", async () => {
    const port = await freePort()
    const first = await startWorker(port)
    const second = await startWorker(port)
    expect(second.seen).toEqual(["NotStarted"])
    await second.exited
    first.send({ _tag: "Close" })
    await first.exited
  })
})
