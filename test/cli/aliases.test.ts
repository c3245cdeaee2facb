import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ALIASES, withAliases } from "../../src/cli/aliases.js"

describe("command aliases", () => {
  it("are pitchfork's: s, stat, l, c, d, e, w, r, sup, daemon, besides ls and kill", () => {
    expect(ALIASES).toEqual({
      s: "start",
      kill: "stop",
      stat: "status",
      ls: "list",
      l: "logs",
      c: "clean",
      d: "disable",
      e: "enable",
      w: "wait",
      r: "run",
      sup: "supervisor",
      daemon: "daemons",
    })
    expect(withAliases(["node", "sv", "s", "web", "-f"])).toEqual(["node", "sv", "start", "web", "-f"])
    // only in the command's place
    expect(withAliases(["node", "sv", "logs", "l"])).toEqual(["node", "sv", "logs", "l"])
  })

  it("of subcommands: `daemons rm` (and `daemon rm`) is `daemons remove`, in the subcommand's place only", () => {
    expect(withAliases(["node", "sv", "daemons", "rm", "web"])).toEqual([
      "node",
      "sv",
      "daemons",
      "remove",
      "web",
    ])
    expect(withAliases(["node", "sv", "daemon", "rm", "web"])).toEqual([
      "node",
      "sv",
      "daemons",
      "remove",
      "web",
    ])
    expect(withAliases(["node", "sv", "daemons", "add", "rm"])).toEqual([
      "node",
      "sv",
      "daemons",
      "add",
      "rm",
    ])
    expect(withAliases(["node", "sv", "logs", "rm"])).toEqual(["node", "sv", "logs", "rm"])
  })

  it("the launcher's own copy (the commands it answers without the CLI) agrees", () => {
    const launcher = readFileSync(join(__dirname, "../../scripts/launcher.cjs"), "utf8")
    const copy = /const LAUNCHER_ALIASES = (\{[^}]*\})/.exec(launcher)?.[1]
    expect(copy).toBeDefined()
    const parsed = JSON.parse(copy!.replace(/(\w+):/g, '"$1":')) as Record<string, string>
    expect(Object.keys(parsed).length).toBeGreaterThan(0)
    for (const [alias, command] of Object.entries(parsed)) expect(ALIASES[alias]).toBe(command)
  })
})
