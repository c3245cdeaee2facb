import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeApiHarness } from "../../src/testing/apiHarness.js"

const STACK = `[daemons.db]
run = "exec db --serve"
ready_delay = 0

[daemons.api]
run = "exec api --serve"
depends = ["db"]
ready_delay = 0

[settings.logs]
log_format = "json"
`

const OTHER = `[daemons.db]
run = "exec other-db"
ready_delay = 0
`

type Entry = { readonly daemon_id: string; readonly message: string }

/** The read commands (Logs, Tail, Settings, Namespaces) on POST /api/commands, in-process. */
describe("read commands on POST /api/commands (in-process API)", () => {
  it.scoped("Logs: the selection's lines from a directory or a namespace, filtered; streamed as ndjson", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const shop = h.project("shop", STACK)
      const other = h.project("other", OTHER)
      for (const [cwd, ids] of [
        [shop, ["api"]],
        [other, ["db"]],
      ] as const) {
        const started = yield* h.request("POST", "/api/commands", {
          _tag: "Start",
          selection: { ids, from: { _tag: "Directory", cwd } },
        })
        expect(started.status, started.text).toBe(200)
      }
      yield* h.logs.emit("shop/db", "db says Hello")
      yield* h.logs.emit("shop/api", "api says hello")
      yield* h.logs.emit("shop/api", "api says bye")
      yield* h.logs.emit("other/db", "the other db says hello")
      // short IDs as seen from the project's directory: its daemons, not the other project's
      const here = yield* h.request("POST", "/api/commands", {
        _tag: "Logs",
        selection: { ids: ["db", "api"], from: { _tag: "Directory", cwd: shop } },
        grep: "hello",
        reason: "cli",
      })
      expect(here.status, here.text).toBe(200)
      expect((here.json as Array<Entry>).map((e) => [e.daemon_id, e.message])).toEqual([
        ["shop/db", "db says Hello"],
        ["shop/api", "api says hello"],
      ])
      // from a namespace: short IDs are its daemons
      const ns = yield* h.request("POST", "/api/commands", {
        _tag: "Logs",
        selection: { ids: ["db"], from: { _tag: "Namespace", namespace: "other" } },
        lines: 1,
      })
      expect((ns.json as Array<Entry>).map((e) => e.message)).toEqual(["the other db says hello"])
      const streamed = yield* h.request("POST", "/api/commands", {
        _tag: "Logs",
        selection: { ids: ["api"], from: { _tag: "Namespace", namespace: "shop" } },
        stream: true,
      })
      expect(streamed.status).toBe(200)
      expect(streamed.contentType).toContain("application/x-ndjson")
      expect(
        streamed.text
          .trim()
          .split("\n")
          .map((l) => (JSON.parse(l) as Entry).message),
      ).toEqual(["api says hello", "api says bye"])
      // typed failures: an unknown daemon, a filter that cannot be used
      const unknown = yield* h.request("POST", "/api/commands", {
        _tag: "Logs",
        selection: { ids: ["nope"], from: { _tag: "Namespace", namespace: "shop" } },
      })
      expect([unknown.status, (unknown.json as { _tag: string })._tag]).toEqual([404, "DaemonNotFound"])
      const badRegex = yield* h.request("POST", "/api/commands", {
        _tag: "Logs",
        selection: { ids: ["shop/db"] },
        regex: "(",
      })
      expect(badRegex.status).toBe(400)
      expect(badRegex.json).toMatchObject({ _tag: "UsageError", message: expect.stringMatching(/regex/) })
    }),
  )

  it.scoped("Tail: the last lines of the selection, then each new one, as LogStreamItem ndjson", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const shop = h.project("shop", STACK)
      const started = yield* h.request("POST", "/api/commands", {
        _tag: "Start",
        selection: { ids: ["api"], from: { _tag: "Directory", cwd: shop } },
      })
      expect(started.status, started.text).toBe(200)
      yield* h.logs.emit("shop/api", "stored line")
      yield* h.logs.emit("shop/db", "db line, not followed")
      const tail = yield* h.openStream(
        "/api/commands",
        {},
        {
          _tag: "Tail",
          selection: { ids: ["api"], from: { _tag: "Directory", cwd: shop } },
          lines: 5,
        },
      )
      expect(tail.status).toBe(200)
      expect(tail.contentType).toContain("application/x-ndjson")
      yield* tail.read((t) => t.includes("stored line"))
      yield* h.logs.emit("shop/db", "another db line")
      yield* h.logs.emit("shop/api", "new line")
      const text = yield* tail.read((t) => t.includes("new line"))
      yield* tail.close
      expect(
        text
          .trim()
          .split("\n")
          .map((l) => (JSON.parse(l) as Entry).message),
      ).toEqual(["stored line", "new line"])
      // until cannot be followed
      const until = yield* h.request("POST", "/api/commands", {
        _tag: "Tail",
        selection: { ids: ["shop/api"] },
        until: 1,
      })
      expect([until.status, (until.json as { _tag: string })._tag]).toEqual([400, "UsageError"])
    }),
  )

  it.scoped("Settings: as read from a directory (its project's files), or the supervisor's own", () =>
    Effect.gen(function* () {
      const h = yield* makeApiHarness()
      const shop = h.project("shop", STACK)
      type Setting = { readonly key: string; readonly value?: unknown; readonly source: string }
      const here = yield* h.request("POST", "/api/commands", {
        _tag: "Settings",
        from: { _tag: "Directory", cwd: shop },
        reason: "cli",
      })
      expect(here.status, here.text).toBe(200)
      const format = (here.json as Array<Setting>).find((s) => s.key === "logs.log_format")
      expect(format).toMatchObject({ value: "json", source: "project" })
      const own = yield* h.request("POST", "/api/commands", { _tag: "Settings" })
      expect(own.status, own.text).toBe(200)
      const settings = own.json as Array<Setting>
      expect(settings.find((s) => s.key === "logs.log_format")?.source).toBe("default")
      expect(settings.map((s) => s.key)).toContain("web.bind_port")
    }),
  )

  it.scoped(
    "Namespaces: the known projects and the daemons that ran, as GET /api/namespaces lists them",
    () =>
      Effect.gen(function* () {
        const h = yield* makeApiHarness()
        const shop = h.project("shop", STACK)
        const started = yield* h.request("POST", "/api/commands", {
          _tag: "Start",
          selection: { ids: ["db"], from: { _tag: "Directory", cwd: shop } },
        })
        expect(started.status, started.text).toBe(200)
        const listed = yield* h.request("POST", "/api/commands", { _tag: "Namespaces" })
        expect(listed.status, listed.text).toBe(200)
        const entry = (
          listed.json as Array<{ name: string; dir: string | null; daemons: Array<string> }>
        ).find((n) => n.name === "shop")
        expect(entry).toMatchObject({ dir: shop, daemons: ["shop/api", "shop/db"] })
        // the route is its alias: the same answer
        expect((yield* h.request("GET", "/api/namespaces")).json).toEqual(listed.json)
      }),
  )
})
