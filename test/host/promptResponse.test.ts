import { createServer, get, type IncomingMessage, type Server, ServerResponse } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { httpDate, imfFixdate } from "../../src/host/httpDate.js"
import { PromptResponse } from "../../src/host/promptResponse.js"

/** What the socket still holds right after a `write` made inside a microtask, as fibers make them. */
interface AfterWrite {
  readonly corked: number
  readonly buffered: number
}

const servers: Array<Server> = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

/** A server streaming one line from a microtask; what its socket held after that write, and what the client got. */
const streamOneLine = async (Response: typeof ServerResponse<IncomingMessage>) => {
  let after: AfterWrite | undefined
  const server = createServer({ ServerResponse: Response }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/x-ndjson" })
    void Promise.resolve().then(() => {
      res.write('{"n":1}\n')
      after = { corked: res.socket?.writableCorked ?? -1, buffered: res.socket?.writableLength ?? -1 }
      res.end()
    })
  })
  servers.push(server)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const { port } = server.address() as { port: number }
  const body = await new Promise<string>((ok, fail) =>
    get({ host: "127.0.0.1", port, path: "/" }, (res: IncomingMessage) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (d: string) => {
        text += d
      })
      res.on("end", () => ok(text))
    }).on("error", fail),
  )
  return { after, body }
}

describe("PromptResponse", () => {
  it("hands a streamed write to the kernel at once, not at the next tick", async () => {
    const { after, body } = await streamOneLine(PromptResponse)
    expect(body).toBe('{"n":1}\n')
    expect(after).toEqual({ corked: 0, buffered: 0 })
  })

  it("differs from Node's response, which holds the write corked until the microtasks are done", async () => {
    const { after, body } = await streamOneLine(ServerResponse)
    expect(body).toBe('{"n":1}\n')
    expect(after?.corked).toBe(1)
    expect(after?.buffered).toBeGreaterThan(0)
  })
})

/** The Date headers of one response from a server whose handler runs `handle` first. */
const dateHeaders = async (handle: (res: ServerResponse) => void) => {
  const server = createServer({ ServerResponse: PromptResponse }, (_req, res) => {
    handle(res)
    res.end("ok")
  })
  servers.push(server)
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
  const { port } = server.address() as { port: number }
  const before = Date.now()
  const raw = await new Promise<Array<string>>((ok, fail) =>
    get({ host: "127.0.0.1", port, path: "/" }, (res: IncomingMessage) => {
      res.resume()
      res.on("end", () => ok(res.rawHeaders))
    }).on("error", fail),
  )
  const after = Date.now()
  const dates = raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === "date")
  return { before, after, dates }
}

describe("the Date header", () => {
  it("is the IMF-fixdate toUTCString gives, for instants across centuries, leap days and year ends", () => {
    const instants = [
      0,
      Date.UTC(2000, 1, 29, 23, 59, 59),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2026, 11, 5, 9, 5, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59),
      -1,
    ]
    // and a spread of instants between 1970 and 2100
    for (let i = 0; i < 500; i++)
      instants.push(Math.floor(((i * 7919) % 500) * 8_282_000_000 + i * 1_234_567))
    for (const t of instants) expect(imfFixdate(t)).toBe(new Date(t).toUTCString())
  })

  it("is one text within a second and the next second's after it", () => {
    const second = Date.UTC(2026, 11, 5, 21, 0, 0)
    expect(httpDate(second)).toBe("Sat, 05 Dec 2026 21:00:00 GMT")
    expect(httpDate(second + 999)).toBe("Sat, 05 Dec 2026 21:00:00 GMT")
    expect(httpDate(second + 1000)).toBe("Sat, 05 Dec 2026 21:00:01 GMT")
  })

  it("is on every response, once, of the second the response was made", async () => {
    const { before, after, dates } = await dateHeaders(() => undefined)
    expect(dates).toHaveLength(1)
    const at = Date.parse(dates[0] ?? "")
    expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000)
    expect(at).toBeLessThanOrEqual(after)
    expect(dates[0]).toBe(imfFixdate(at))
  })

  it("gives way to one a handler sets itself", async () => {
    const { dates } = await dateHeaders((res) => res.setHeader("Date", "Thu, 01 Jan 1970 00:00:00 GMT"))
    expect(dates).toEqual(["Thu, 01 Jan 1970 00:00:00 GMT"])
  })
})
