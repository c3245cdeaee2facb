import { describe, expect, it } from "vitest"
import { controlActions, daemonRoutes } from "../../src/api/routes.js"
import { renderPage } from "../../src/web/page.js"

describe("the API's daemon routes, read from its definition", () => {
  it("are the routes with an ID; the control actions are their POST /api/daemons/{id}/<action>", () => {
    expect(daemonRoutes().map((r) => `${r.method} /${r.segments.join("/")}`)).toEqual(
      expect.arrayContaining([
        "GET /api/daemons/:id",
        "GET /api/logs/:id/tail",
        "GET /api/processes/:id/tree",
      ]),
    )
    expect(controlActions()).toEqual(["start", "stop", "restart", "enable", "disable"])
  })

  it("the web UI's log panel opens with settings.web.log_lines lines (100 by default)", () => {
    expect(renderPage()).toContain("const LOG_LINES = 100;")
    expect(renderPage(7)).toContain("const LOG_LINES = 7;")
    expect(renderPage(7)).toContain('"/tail?lines=" + LOG_LINES')
  })

  it("the web UI offers a button per control action", () => {
    expect(renderPage()).toContain('const ACTIONS = ["start","stop","restart","enable","disable"];')
  })
})
