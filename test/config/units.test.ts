import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { findCycle } from "../../src/config/dependencies.js"
import { candidateLocations } from "../../src/config/discover.js"
import { locateKey } from "../../src/config/locate.js"
import { expandPath } from "../../src/config/paths.js"
import { closest, editDistance } from "../../src/domain/suggest.js"
import { toml } from "./helpers.js"

describe("locateKey", () => {
  const text = toml(
    "#:schema ./schema.json", // 1
    'namespace = "shop"', // 2
    "", // 3
    "[daemons.web]", // 4
    'run = "npm start"', // 5
    "  retry = 3", // 6
    "depends = [", // 7
    '  "db",', // 8
    "]", // 9
    "", // 10
    "[daemons.web.env]", // 11
    'PORT = "3000"', // 12
    "", // 13
    '[daemons."my.db"]', // 14
    "run = 'db'", // 15
    "", // 16
    "[ settings . supervisor ]", // 17
    'stop_timeout = "2s"', // 18
    "", // 19
    "[groups]", // 20
    'dev.daemons = ["web"]', // 21
    "", // 22
    "[slugs.shop]", // 23
    'dir = "~/shop"', // 24
  )

  it.each([
    [["namespace"], 2],
    [["daemons", "web"], 4],
    [["daemons", "web", "run"], 5],
    [["daemons", "web", "retry"], 6],
    [["daemons", "web", "depends"], 7],
    [["daemons", "web", "env"], 11],
    [["daemons", "web", "env", "PORT"], 12],
    [["daemons", "my.db"], 14],
    [["daemons", "my.db", "run"], 15],
    [["settings", "supervisor"], 17],
    [["settings", "supervisor", "stop_timeout"], 18],
    [["groups", "dev", "daemons"], 21],
    [["slugs", "shop", "dir"], 24],
  ] as const)("finds %j on line %i", (path, line) => {
    expect(locateKey(text, path)).toBe(line)
  })

  it("ignores array indices in the path", () => {
    expect(locateKey(text, ["daemons", "web", "depends", 0])).toBe(7)
    expect(locateKey(text, ["groups", "dev", "daemons", 2])).toBe(21)
  })

  it("falls back to the closest enclosing table header for a missing key", () => {
    expect(locateKey(text, ["daemons", "web", "watch"])).toBe(4)
    expect(locateKey(text, ["daemons", "web", "env", "MISSING"])).toBe(11)
    expect(locateKey(text, ["settings", "supervisor", "user"])).toBe(17)
  })

  it("falls back to the first header or key inside the path when the path itself is only implied", () => {
    expect(locateKey(text, ["slugs"])).toBe(23)
    expect(locateKey(text, ["settings"])).toBe(17)
    expect(locateKey(text, ["groups", "dev"])).toBe(21)
    expect(locateKey(toml("[daemons]", 'web.run = "x"'), ["daemons", "web"])).toBe(2)
  })

  it("prefers the key itself over keys inside it", () => {
    expect(
      locateKey(toml("[daemons.web.env]", 'A = "1"', "[daemons.web]", 'run = "x"'), ["daemons", "web"]),
    ).toBe(3)
  })

  it("returns undefined when nothing matches", () => {
    expect(locateKey(text, ["nothing", "here"])).toBeUndefined()
    expect(locateKey("", ["daemons"])).toBeUndefined()
    expect(locateKey(text, [])).toBeUndefined()
  })

  it("understands dotted keys at the top level and quoted keys", () => {
    const dotted = toml('daemons.web.run = "x"', 'daemons."a b".run = "y"', "daemons.'c'.retry = 1")
    expect(locateKey(dotted, ["daemons", "web", "run"])).toBe(1)
    expect(locateKey(dotted, ["daemons", "a b", "run"])).toBe(2)
    expect(locateKey(dotted, ["daemons", "c", "retry"])).toBe(3)
  })

  it("handles CRLF line endings and array-of-tables headers", () => {
    expect(locateKey('[daemons.web]\r\nrun = "x"\r\nretry = 1\r\n', ["daemons", "web", "retry"])).toBe(3)
    expect(locateKey(toml("[[things]]", "name = 1"), ["things"])).toBe(1)
  })

  it("does not confuse a key with a longer key sharing its prefix", () => {
    const t = toml("[daemons.web]", "ready_port = 1", "port = 2")
    expect(locateKey(t, ["daemons", "web", "port"])).toBe(3)
    expect(locateKey(toml("[daemons.webapp]", 'run = "a"'), ["daemons", "web"])).toBeUndefined()
  })
})

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["abc", "", 3],
    ["", "abc", 3],
    ["same", "same", 0],
    ["kitten", "sitting", 3],
    // a swap of two neighbours is one edit
    ["retyr", "retry", 1],
    ["strat", "start", 1],
    ["ca", "abc", 3],
    ["flaw", "lawn", 2],
    ["run", "ruin", 1],
    ["Run", "run", 1],
  ])("editDistance(%j, %j) = %i", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d)
    expect(editDistance(b, a)).toBe(d)
  })
})

describe("closest", () => {
  const keys = ["run", "dir", "env", "retry", "ready_port", "ready_http", "depends", "watch_mode"]

  it("suggests the nearest candidate for a plausible typo", () => {
    expect(closest("retyr", keys)).toBe("retry")
    expect(closest("depend", keys)).toBe("depends")
    expect(closest("ready_prot", keys)).toBe("ready_port")
    expect(closest("watchmode", keys)).toBe("watch_mode")
  })

  it("ignores case when comparing but returns the candidate as written", () => {
    expect(closest("RUN", keys)).toBe("run")
    expect(closest("Retry", ["retry", "Retry2"])).toBe("retry")
  })

  it("returns undefined when nothing is close enough", () => {
    expect(closest("zzzzzzzz", keys)).toBeUndefined()
    expect(closest("completely_different", keys)).toBeUndefined()
    expect(closest("x", [])).toBeUndefined()
  })

  it("allows two edits for short words and a third of the length for long ones, never a rewrite", () => {
    expect(closest("ab", ["xy"])).toBeUndefined()
    expect(closest("abc", ["xbz"])).toBe("xbz")
    expect(closest("abc", ["xyz"])).toBeUndefined()
    // 12 characters allow 4 edits
    expect(closest("abcdefghijkl", ["abcdefghwxyz"])).toBe("abcdefghwxyz")
    expect(closest("abcdefghijkl", ["abcdefgvwxyz"])).toBeUndefined()
  })

  it("keeps the first of equally close candidates", () => {
    expect(closest("cat", ["bat", "hat"])).toBe("bat")
  })
})

describe("findCycle", () => {
  const graph = (edges: Record<string, ReadonlyArray<string>>) => new Map(Object.entries(edges))

  it("finds no cycle in an empty graph, a chain or a diamond", () => {
    expect(findCycle(new Map())).toBeUndefined()
    expect(findCycle(graph({ a: ["b"], b: ["c"], c: [] }))).toBeUndefined()
    expect(findCycle(graph({ top: ["l", "r"], l: ["bottom"], r: ["bottom"], bottom: [] }))).toBeUndefined()
  })

  it("finds a self-dependency", () => {
    expect(findCycle(graph({ a: ["a"] }))).toEqual(["a", "a"])
  })

  it("finds a two-cycle", () => {
    expect(findCycle(graph({ a: ["b"], b: ["a"] }))).toEqual(["a", "b", "a"])
  })

  it("finds a three-cycle reached through an entry node, without the entry node", () => {
    expect(findCycle(graph({ entry: ["a"], a: ["b"], b: ["c"], c: ["a"] }))).toEqual(["a", "b", "c", "a"])
  })

  it("ignores edges to nodes outside the graph", () => {
    expect(findCycle(graph({ a: ["missing"], b: ["a"] }))).toBeUndefined()
  })

  it("is stable: visits nodes in insertion order", () => {
    expect(findCycle(graph({ x: ["y"], y: ["x"], a: ["b"], b: ["a"] }))).toEqual(["x", "y", "x"])
    expect(findCycle(graph({ y: ["x"], x: ["y"] }))).toEqual(["y", "x", "y"])
  })

  it("finds a cycle behind an acyclic branch visited first", () => {
    expect(findCycle(graph({ a: ["b", "c"], b: [], c: ["d"], d: ["c"] }))).toEqual(["c", "d", "c"])
  })
})

describe("expandPath", () => {
  const base = "/projects/app"
  const home = "/home/me"
  it.each([
    ["~", home],
    ["~/", `${home}`],
    ["~/code", `${home}/code`],
    ["data", `${base}/data`],
    ["../x", "/projects/x"],
    ["/abs/path", "/abs/path"],
    ["$HOME/x", `${base}/$HOME/x`],
    ["~other/x", `${base}/~other/x`],
  ])("%j → %j", (value, expected) => {
    expect(nodePath.normalize(expandPath(value, base, home))).toBe(nodePath.normalize(expected))
  })
})

describe("candidateLocations", () => {
  it("lists system, user, then four files per directory from / down to cwd", () => {
    const locations = candidateLocations({
      cwd: "/a/b",
      home: "/home/me",
      env: { SUPERVISOR_SYSTEM_CONFIG_DIR: "/sys", SUPERVISOR_CONFIG_DIR: "" },
    })
    expect(locations.map((l) => [l.path, l.level, l.local, l.baseDir, l.sibling])).toEqual([
      ["/sys/config.toml", "system", false, "/sys", undefined],
      ["/home/me/.config/supervisor/config.toml", "user", false, "/home/me/.config/supervisor", undefined],
      ...["/", "/a", "/a/b"].flatMap((d) => [
        [nodePath.join(d, ".config/supervisor.toml"), "project", false, d, undefined],
        [
          nodePath.join(d, ".config/supervisor.local.toml"),
          "project",
          true,
          d,
          nodePath.join(d, ".config/supervisor.toml"),
        ],
        [nodePath.join(d, "supervisor.toml"), "project", false, d, undefined],
        [nodePath.join(d, "supervisor.local.toml"), "project", true, d, nodePath.join(d, "supervisor.toml")],
      ]),
    ])
  })

  it("lists a file once when cwd is inside .config", () => {
    const paths = candidateLocations({
      cwd: "/p/.config",
      home: "/h",
      env: { SUPERVISOR_SYSTEM_CONFIG_DIR: "/s" },
    })
      .filter((l) => l.level === "project" && l.path.startsWith("/p/"))
      .map((l) => [l.path, l.baseDir])
    expect(paths).toEqual([
      ["/p/.config/supervisor.toml", "/p"],
      ["/p/.config/supervisor.local.toml", "/p"],
      ["/p/supervisor.toml", "/p"],
      ["/p/supervisor.local.toml", "/p"],
      ["/p/.config/.config/supervisor.toml", "/p/.config"],
      ["/p/.config/.config/supervisor.local.toml", "/p/.config"],
    ])
  })

  it("defaults the system dir to /etc/supervisor", () => {
    const [system] = candidateLocations({ cwd: "/", home: "/h", env: {} })
    expect(system!.path).toBe("/etc/supervisor/config.toml")
  })
})
