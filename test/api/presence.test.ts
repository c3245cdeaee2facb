// The presence routes through the API handlers (fake processes, in memory): a relative directory
// is a 400 naming the fix, a pid of no process a 404 ProcessGone, and a session is listed.
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeApiHarness } from "../../src/testing/apiHarness.js"

describe("presence routes", () => {
  it.scoped("relative directories are refused; unknown pids are ProcessGone; sessions are listed", () =>
    Effect.gen(function* () {
      const api = yield* makeApiHarness()
      const relative = yield* api.request("POST", "/api/sessions", { pid: process.pid, directory: "app" })
      expect(relative.status).toBe(400)
      expect(JSON.stringify(relative.json)).toContain("expected an absolute directory")
      const gone = yield* api.request("POST", "/api/sessions", { pid: 999_999_999, directory: "/tmp" })
      expect(gone.status).toBe(404)
      expect(gone.json).toMatchObject({ _tag: "ProcessGone" })
      const entered = yield* api.request("POST", "/api/sessions", { pid: process.pid, directory: "/tmp" })
      expect(entered.status).toBe(200)
      expect(entered.json).toMatchObject({ kind: "session", pid: process.pid, directory: "/tmp" })
      const listed = yield* api.request("GET", "/api/sessions")
      expect(listed.json).toEqual([expect.objectContaining({ pid: process.pid, directory: "/tmp" })])
      const left = yield* api.request("POST", "/api/sessions/leave", { pid: process.pid })
      expect(left.json).toMatchObject({ left: [{ directory: "/tmp" }] })
      const cd = yield* api.request("POST", "/api/shells/cd", { pid: process.pid, directory: "/tmp" })
      expect(cd.json).toEqual({ notices: [] })
    }),
  )
})
