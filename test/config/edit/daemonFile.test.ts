import * as fs from "node:fs"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Either } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { checkEdit, projectDir, scopeFile, writeAtomic } from "../../../src/config/edit/daemonFile.js"
import { makeSandbox, type Sandbox } from "../helpers.js"

let sb: Sandbox
beforeEach(() => {
  sb = makeSandbox()
})
afterEach(() => sb.cleanup())

const run = <A, E>(e: Effect.Effect<A, E, never>) => Effect.runPromise(Effect.either(e))
const options = () => ({ cwd: sb.path("shop/src"), env: sb.env, home: sb.home })

describe("the file a scope edits", () => {
  it("is in the nearest directory with a project file, else the current one", () => {
    sb.mkdir("shop/src")
    expect(projectDir(sb.path("shop/src"))).toBe(sb.path("shop/src"))
    sb.write({ "shop/supervisor.local.toml": "" })
    expect(projectDir(sb.path("shop/src"))).toBe(sb.path("shop"))
    expect(scopeFile("project", options())).toBe(sb.path("shop/supervisor.toml"))
    expect(scopeFile("local", options())).toBe(sb.path("shop/supervisor.local.toml"))
    expect(scopeFile("global", options())).toBe(`${sb.userDir}/config.toml`)
  })

  it("is .config/supervisor.toml when the project has only that one", () => {
    sb.write({ "shop/.config/supervisor.toml": "", "shop/src/x": "" })
    expect(scopeFile("project", options())).toBe(sb.path("shop/.config/supervisor.toml"))
    expect(scopeFile("local", options())).toBe(sb.path("shop/supervisor.local.toml"))
  })
})

describe("checkEdit", () => {
  const check = (before: string | undefined, after: string) =>
    run(
      checkEdit(options(), sb.path("shop/supervisor.toml"), before, after).pipe(
        Effect.provide(NodeFileSystem.layer),
      ),
    )

  it("loads the configuration with the edited text in place of the file, writing nothing", async () => {
    sb.write({ "shop/supervisor.toml": '[daemons.db]\nrun = "x"\n', "shop/src/x": "" })
    const ok = await check(
      '[daemons.db]\nrun = "x"\n',
      '[daemons.db]\nrun = "x"\n\n[daemons.web]\nrun = "y"\ndepends = ["db"]\n',
    )
    expect(Either.isRight(ok) && Object.keys(ok.right?.daemons ?? {})).toEqual(["shop/db", "shop/web"])
    expect(fs.readFileSync(sb.path("shop/supervisor.toml"), "utf8")).toBe('[daemons.db]\nrun = "x"\n')
  })

  it("refuses a problem the edit brings, with the file, line and key", async () => {
    sb.write({ "shop/supervisor.toml": "", "shop/src/x": "" })
    const bad = await check("", '[daemons.web]\nrun = "y"\nretry = "often"\n')
    expect(bad).toMatchObject({
      _tag: "Left",
      left: { file: sb.path("shop/supervisor.toml"), line: 3, key: "daemons.web.retry" },
    })
  })

  it("does not blame the edit for a problem another file already had", async () => {
    sb.write({
      "shop/supervisor.toml": "",
      "shop/supervisor.local.toml": "[daemons.x]\nrun = 3\n",
      "shop/src/x": "",
    })
    expect(Either.isRight(await check("", '[daemons.web]\nrun = "y"\n'))).toBe(true)
  })

  it("checks a new file against the files as they are", async () => {
    sb.mkdir("shop/src")
    expect(Either.isRight(await check(undefined, '[daemons.web]\nrun = "y"\n'))).toBe(true)
  })
})

describe("writeAtomic", () => {
  it("replaces the file through a rename, keeping its mode, and leaves no temporary file", async () => {
    const file = sb.path("p/supervisor.toml")
    sb.write({ "p/supervisor.toml": "old" })
    fs.chmodSync(file, 0o640)
    const inode = fs.statSync(file).ino
    expect(Either.isRight(await run(writeAtomic(file, "new")))).toBe(true)
    expect(fs.readFileSync(file, "utf8")).toBe("new")
    expect(fs.statSync(file).mode & 0o777).toBe(0o640)
    expect(fs.statSync(file).ino).not.toBe(inode)
    expect(fs.readdirSync(sb.path("p"))).toEqual(["supervisor.toml"])
  })

  it("creates a new file 0644, with its directory", async () => {
    const file = sb.path("new/dir/config.toml")
    expect(Either.isRight(await run(writeAtomic(file, "x")))).toBe(true)
    expect(fs.statSync(file).mode & 0o777).toBe(0o644)
  })
})
