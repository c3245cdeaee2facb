import { createServer, get, type IncomingMessage, type Server, ServerResponse } from "node:http"
import { afterEach, describe, expect, it } from "vitest"
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
