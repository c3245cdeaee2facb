import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { vi } from "vitest"

/**
 * A fake supervisor for the quick client's tests: a real HTTP server on the state directory's
 * socket that records each request (its path and JSON body) and answers with `answer`, and
 * stdout/stderr captured. `start` in a `beforeEach`, `stop` in the `afterEach`.
 */
export const makeFakeSupervisor = (name: string) => {
  const saved = { state: process.env.SUPERVISOR_STATE_DIR, color: process.env.NO_COLOR }
  const fake = {
    dir: "",
    server: undefined as Server | undefined,
    answer: (res: ServerResponse): void => {
      res.writeHead(500).end()
    },
    received: [] as Array<Record<string, unknown>>,
    written: { stdout: "", stderr: "" },
    start: async () => {
      fake.dir = mkdtempSync(join(tmpdir(), `sv-${name}-`))
      mkdirSync(join(fake.dir, "sock"))
      process.env.SUPERVISOR_STATE_DIR = fake.dir
      process.env.NO_COLOR = "1"
      fake.received = []
      fake.written.stdout = ""
      fake.written.stderr = ""
      const server = createServer((req, res) => {
        let body = ""
        req.setEncoding("utf8").on("data", (d: string) => {
          body += d
        })
        req.on("end", () => {
          fake.received.push({ path: req.url, ...(JSON.parse(body) as Record<string, unknown>) })
          fake.answer(res)
        })
      })
      fake.server = server
      await new Promise<void>((resolve) => server.listen(join(fake.dir, "sock", "api.sock"), resolve))
      for (const stream of ["stdout", "stderr"] as const)
        vi.spyOn(process[stream], "write").mockImplementation((chunk: string | Uint8Array) => {
          fake.written[stream] += Buffer.from(chunk).toString()
          return true
        })
    },
    stop: async () => {
      vi.restoreAllMocks()
      process.exitCode = undefined
      for (const [key, value] of [
        ["SUPERVISOR_STATE_DIR", saved.state],
        ["NO_COLOR", saved.color],
      ] as const) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
      const server = fake.server
      if (server !== undefined) {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      }
      rmSync(fake.dir, { recursive: true, force: true })
    },
  }
  return fake
}
