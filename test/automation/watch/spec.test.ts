import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { displayPath, pathFilter, specsOf, targetOf, widen } from "../../../src/automation/watch/spec.js"
import { initialState } from "../../../src/supervisor/DaemonState.js"
import { definition } from "../../supervisor/helpers.js"

const BASE = "/proj"
const filterOf = (patterns: ReadonlyArray<string>, stateDir?: string) =>
  pathFilter(
    patterns.map((p) => targetOf(BASE, p)),
    stateDir,
  )

describe("watch targets", () => {
  it("watch from the pattern's leading literal directories; a plain file from its directory", () => {
    expect(targetOf(BASE, "src/**/*.ts").root).toBe("/proj/src")
    expect(targetOf(BASE, "*.js").root).toBe("/proj")
    expect(targetOf(BASE, "package.json").root).toBe("/proj")
    expect(targetOf(BASE, "config/app.toml").root).toBe("/proj/config")
    expect(targetOf(BASE, "../shared/*.js").root).toBe("/shared")
    expect(targetOf(BASE, "/etc/app/*.conf").root).toBe("/etc/app")
  })
  it("a root that does not exist is watched from its parent, still matching only the pattern", () => {
    const t = widen(targetOf(BASE, "gen/*.js"))
    expect(t.root).toBe("/proj")
    const f = pathFilter([t], undefined)
    expect(f.descends("/proj/gen")).toBe(true)
    expect(f.descends("/proj/other")).toBe(false)
    expect(f.matches("/proj/gen/a.js")).toBe(true)
    expect(f.matches("/proj/a.js")).toBe(false)
  })
})

describe("ignore rules", () => {
  it("node_modules and .git are never watched by a pattern that does not name them", () => {
    const f = filterOf(["**/*.js"])
    expect(f.matches("/proj/src/a.js")).toBe(true)
    expect(f.matches("/proj/node_modules/x/a.js")).toBe(false)
    expect(f.descends("/proj/node_modules")).toBe(false)
    expect(f.descends("/proj/src/node_modules")).toBe(false)
    expect(f.matches("/proj/.git/hooks/a.js")).toBe(false)
    expect(f.descends("/proj/.git")).toBe(false)
  })
  it("a pattern that names them watches them", () => {
    const f = filterOf(["node_modules/lib/*.js", ".git/HEAD"])
    expect(f.matches("/proj/node_modules/lib/a.js")).toBe(true)
    expect(f.descends("/proj/node_modules")).toBe(true)
    expect(f.matches("/proj/.git/HEAD")).toBe(true)
    const g = filterOf(["**/node_modules/**/*.js"])
    expect(g.matches("/proj/a/node_modules/b/c.js")).toBe(true)
  })
  it("the state directory is left out unless the pattern lies in it", () => {
    const f = filterOf(["**/*"], "/proj/.state")
    expect(f.matches("/proj/.state/logs/x.log")).toBe(false)
    expect(f.descends("/proj/.state")).toBe(false)
    expect(f.matches("/proj/app.js")).toBe(true)
    const g = filterOf([".state/extra/*.toml"], "/proj/.state")
    expect(g.matches("/proj/.state/extra/a.toml")).toBe(true)
  })
  it("directories above a root are passed through, not others", () => {
    const f = filterOf(["src/**/*.ts"])
    expect(f.descends("/proj")).toBe(true)
    expect(f.descends("/proj/src")).toBe(true)
    expect(f.descends("/proj/lib")).toBe(false)
  })
})

describe("watch specs of the daemons", () => {
  it("each daemon with a watch list, relative to its config file's directory", () => {
    const web = initialState(definition("web", { watch: ["*.js"], watch_mode: "poll" }))
    const db = initialState(definition("db"))
    const adhoc = initialState({ ...definition("job", { watch: ["x"] }), adhoc: true, source: null })
    const timing = (id: string) => ({
      debounce: Duration.seconds(id === "app/web" ? 1 : 2),
      pollInterval: Duration.millis(500),
    })
    expect(specsOf([web.def, db.def, adhoc.def], timing)).toEqual([
      { id: "app/web", baseDir: "/srv", patterns: ["*.js"], mode: "poll", timing: timing("app/web") },
      { id: "app/job", baseDir: "/srv/job", patterns: ["x"], mode: "native", timing: timing("app/job") },
    ])
  })
  it("names a changed file relative to that directory", () => {
    expect(displayPath("/proj", "/proj/src/app.js")).toBe("src/app.js")
    expect(displayPath("/proj", "/shared/x.js")).toBe("/shared/x.js")
  })
})
