import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { nothingToStart } from "../../src/cli/nothingToStart.js"
import { closestCommand, commandProblem, unknownFlagProblem } from "../../src/cli/unknownWords.js"
import { fileCommand, fileHint, idFromFile } from "../../src/control/fileHint.js"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"
import { Settings } from "../../src/domain/Settings.js"
import { nearest } from "../../src/domain/suggest.js"

describe("commandProblem", () => {
  it("names an unknown command with the closest command (an alias counts as its command)", () => {
    expect(commandProblem(["stats"])).toBe(
      "unknown command `stats`; did you mean `status`? (see `supervisor --help`)",
    )
    expect(commandProblem(["strat", "web"])).toContain("did you mean `start`?")
    expect(closestCommand("lgos")).toBe("logs")
    // a nested command by its full name
    expect(closestCommand("validate")).toBe("config validate")
    expect(closestCommand("tokn")).toBe("supervisor token")
    // the hidden `complete` is not suggested: `spec complete` is
    expect(closestCommand("compelte")).toBe("spec complete")
    expect(commandProblem(["frobnicate"])).toBe("unknown command `frobnicate` (see `supervisor --help`)")
  })

  it("names an unknown flag in the command's place, and lets the commands and program flags through", () => {
    expect(commandProblem(["--bogus"])).toBe("unknown option --bogus (see `supervisor --help`)")
    expect(commandProblem(["--vresion"])).toContain("did you mean `--version`?")
    for (const ok of [["start"], ["config", "show"], ["--version"], ["--completions", "bash"], []])
      expect(commandProblem(ok), ok.join(" ")).toBeUndefined()
  })
})

describe("unknownFlagProblem", () => {
  it("names the first flag the command does not take, with the closest of its own", () => {
    expect(unknownFlagProblem(["start", "web", "--forse"])).toBe(
      "unknown option --forse; did you mean `--force`? (see `supervisor start --help`)",
    )
    expect(unknownFlagProblem(["config", "show", "--jsno"])).toBe(
      "unknown option --jsno; did you mean `--json`? (see `supervisor config show --help`)",
    )
    // --force is start's, not stop's
    expect(unknownFlagProblem(["stop", "web", "--force"])).toContain("unknown option --force")
    expect(unknownFlagProblem(["start", "-x"])).toBe("unknown option -x (see `supervisor start --help`)")
    expect(unknownFlagProblem(["start", "--forse=1"])).toContain("unknown option --forse;")
  })

  it("skips values, attached values, short clusters, --help and what follows --", () => {
    for (const args of [
      ["start", "-fq", "web"],
      ["logs", "-n5", "web"],
      ["logs", "--grep", "-x"],
      ["logs", "--lines=5"],
      ["start", "--help"],
      ["run", "x", "--", "grep", "--bogus"],
      ["start", "web", "--expected-port", "4000", "--bump", "-1"],
      ["spec", "check", "-"],
    ])
      expect(unknownFlagProblem(args), args.join(" ")).toBeUndefined()
  })
})

describe("nearest", () => {
  it("is every plausible typo, closest first, ties in the given order, at most max", () => {
    const ids = ["shop/web", "shop/worker", "other/web", "blog/api"]
    const name = (q: string) => q.slice(q.indexOf("/") + 1)
    expect(nearest("wbe", ids, 3, name)).toEqual(["shop/web", "other/web"])
    expect(nearest("wrker", ids, 3, name)).toEqual(["shop/worker"])
    expect(nearest("wbe", ids, 1, name)).toEqual(["shop/web"])
    expect(nearest("zzzzzz", ids, 3, name)).toEqual([])
  })
})

describe("fileHint", () => {
  const dir = mkdtempSync(join(tmpdir(), "sv-filehint-"))
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\n", { mode: 0o755 })
  writeFileSync(join(dir, "notes"), "")

  it("picks the interpreter by extension, an executable file runs as it is", () => {
    expect(fileCommand("server.js", dir)).toBe("node server.js")
    expect(fileCommand("app.py", dir)).toBe("python3 app.py")
    expect(fileCommand("src/main.ts", dir)).toBe("npx tsx src/main.ts")
    expect(fileCommand("./run.sh", dir)).toBe("./run.sh")
    expect(fileCommand("run.sh", dir)).toBe("./run.sh")
    // neither a script's extension nor an executable file: a daemon name after all
    expect(fileCommand("notes", dir)).toBeUndefined()
    expect(fileCommand("web", dir)).toBeUndefined()
    rmSync(dir, { recursive: true, force: true })
  })

  it("takes the ID from the file's base name", () => {
    expect(idFromFile("server.js")).toBe("server")
    expect(idFromFile("./bin/my app.py")).toBe("my-app")
    expect(idFromFile(".js")).toBe("js")
    expect(fileHint("server.js", "/nowhere")).toBe(
      'server.js is a file, not a daemon: run it as one with `supervisor run server -- node server.js`, or declare it in supervisor.toml ([daemons.server] run = "node server.js")',
    )
  })
})

describe("nothingToStart", () => {
  const config = (files: ResolvedConfig["files"]): ResolvedConfig => ({
    cwd: "/work/here",
    files,
    daemons: {},
    groups: {},
    slugs: {},
    settings: Schema.decodeSync(Settings)({}),
    warnings: [],
  })
  const env = { HOME: "/home/u", SUPERVISOR_SYSTEM_CONFIG_DIR: "/etc/sv" }

  it("with no file, names the files and directories searched and how to create one", () => {
    expect(nothingToStart(config([]), undefined, env)).toEqual([
      "no daemons to start: no configuration file found; searched:",
      "  .config/supervisor.toml or supervisor.toml (and their .local.toml) in /work/here and each directory above it",
      "  /home/u/.config/supervisor/config.toml (user)",
      "  /etc/sv/config.toml (system)",
      'create /work/here/supervisor.toml with a daemon, e.g.:\n  [daemons.web]\n  run = "node server.js"',
      "then `supervisor start --all`; or run a command without a file: `supervisor run ID -- CMD...`",
    ])
    // --local: the project's files only
    const local = nothingToStart(config([]), "local", env)
    expect(local[0]).toBe("no daemons to start: no project configuration file found; searched:")
    expect(local.join("\n")).not.toContain("(user)")
  })

  it("with files and no daemon, names the files", () => {
    const files = [{ path: "/work/here/supervisor.toml", level: "project", namespace: "here" }] as never
    expect(nothingToStart(config(files), undefined, env)[0]).toBe(
      "no daemons to start: none is configured in /work/here/supervisor.toml",
    )
  })
})
