import { describe, expect, it } from "vitest"
import { addressedByName, loopbackBinds } from "../../src/export/loopback.js"

describe("loopbackBinds", () => {
  it("finds a bind option or the word bind followed by a loopback address in run", () => {
    for (const [run, what] of [
      ["uvicorn app:app --host 127.0.0.1 --port 8000", "--host 127.0.0.1"],
      ["next dev --hostname=localhost", "--hostname=localhost"],
      ["gunicorn -b 127.0.0.1:8000 app:app", "-b 127.0.0.1:8000"],
      ["redis-server --port 6379 --bind 127.0.0.1", "--bind 127.0.0.1"],
      ["exec sh -c 'echo bind 127.0.0.1 | cfg'", "bind 127.0.0.1"],
      ["python -m http.server --bind '::1' 8000", "--bind '::1"],
      [`node -e "require('http').createServer(h).listen(process.env.PORT, '127.0.0.1')"`, "127.0.0.1"],
    ] as const) {
      const found = loopbackBinds(run, {})
      expect(found.length, run).toBe(1)
      expect(found[0]![0]).toBe("run")
      expect(found[0]![1], run).toContain(what)
    }
  })

  it("finds bind variables in env, not addresses a daemon connects to", () => {
    expect(
      loopbackBinds("./server", {
        HOST: "127.0.0.1",
        BIND_ADDRESS: "localhost:8080",
        DB_HOST: "localhost",
        DATABASE_URL: "postgres://127.0.0.1/db",
      }),
    ).toEqual([
      ["env.HOST", "HOST=127.0.0.1"],
      ["env.BIND_ADDRESS", "BIND_ADDRESS=localhost:8080"],
    ])
  })

  it("leaves other addresses and connections to the loopback alone", () => {
    for (const run of [
      "uvicorn app:app --host 0.0.0.0",
      "node client.js --db=localhost:5432",
      "curl http://127.0.0.1:3000/",
      "server --host 127.0.0.10.example",
      "server --host localhost.example.com",
    ])
      expect(loopbackBinds(run, { HOST: "0.0.0.0" }), run).toEqual([])
  })
})

describe("addressedByName", () => {
  const owner = (port: number) => (port === 5432 ? "shop--db" : port === 3000 ? "shop--api" : undefined)

  it("names the daemon that serves a port of a loopback address", () => {
    expect(addressedByName("--db=localhost:5432", owner)).toBe("--db=shop--db:5432")
    expect(addressedByName("postgres://u:p@127.0.0.1:5432/app", owner)).toBe(
      "postgres://u:p@shop--db:5432/app",
    )
    expect(addressedByName("http://[::1]:3000/v1 and 127.0.0.2:3000", owner)).toBe(
      "http://shop--api:3000/v1 and shop--api:3000",
    )
  })

  it("leaves ports no other daemon serves, longer ports and hosts that only end in localhost", () => {
    for (const value of [
      "localhost:8080",
      "localhost:54321",
      "mylocalhost:5432",
      "db.localhost:5432",
      "0.0.0.0:5432",
      "localhost",
    ])
      expect(addressedByName(value, owner), value).toBe(value)
  })
})
