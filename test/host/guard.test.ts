import { describe, expect, it } from "vitest"
import { daemonPathProblem } from "../../src/host/guard.js"

describe("daemonPathProblem", () => {
  it("lets the API's daemon routes with a one-segment ID through, and paths of no daemon route", () => {
    for (const path of [
      "/api/daemons/app%2Fweb",
      "/api/daemons/app%2Fweb/start",
      "/api/daemons/app%2Fweb/disable",
      "/api/logs/app%2Fweb/tail",
      "/api/processes/app%2Fweb/tree",
      "/api/daemons",
      "/api/namespaces/app",
      "/api/stats",
      "/",
    ])
      expect(daemonPathProblem(path), path).toBeUndefined()
  })

  it("names a split ID, or what follows a daemon ID and is no route, with the routes' forms", () => {
    expect(daemonPathProblem("/api/daemons/app/web")).toContain("app%2Fweb")
    expect(daemonPathProblem("/api/daemons/app/web/start")).toContain("/api/daemons/{id}/start")
    expect(daemonPathProblem("/api/daemons/app%2Fweb/bogus")).toContain("no such route")
    expect(daemonPathProblem("/api/logs/app/web/tail")).toContain("(/api/logs/{id}/tail)")
    expect(daemonPathProblem("/api/processes/app/web/tree")).toContain("(/api/processes/{id}/tree)")
  })
})
