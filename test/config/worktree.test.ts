import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import {
  portDelta,
  worktreeHostLabel,
  worktreeLabel,
  worktreeNamespace,
  worktreeOffset,
} from "../../src/domain/Worktree.js"
import { loadErr, loadOk, only, toml, useSandbox } from "./helpers.js"

const run = promisify(execFile)
const sandbox = useSandbox()

const web = toml("[daemons.web]", 'run = "node web.js"', "port = 3000")

/** The files git writes for `git worktree add <wt>` of the repository in `main` (no git run). */
const gitLayout = (main: string, wt: string, name: string, config = web) => ({
  [`${main}/.git/HEAD`]: "ref: refs/heads/main\n",
  [`${main}/.git/worktrees/${name}/commondir`]: "../..\n",
  [`${main}/.git/worktrees/${name}/gitdir`]: `${wt}/.git\n`,
  [`${main}/supervisor.toml`]: config,
  [`${wt}/supervisor.toml`]: config,
})

describe("worktree names", () => {
  it("a worktree's label is one lower-case host-name label", () => {
    expect(worktreeLabel("feature-x")).toBe("feature-x")
    expect(worktreeLabel("Feature/X--Y")).toBe("feature-x-y")
    expect(worktreeLabel("-.weird..name.-")).toBe("weird-name")
    expect(worktreeLabel("日本")).toBe("worktree")
    expect(worktreeLabel("a".repeat(60))).toHaveLength(40)
  })

  it("the namespace is the project's name, a dot, the label; the host puts the label first", () => {
    expect(worktreeNamespace("shop", "feature-x")).toBe("shop.feature-x")
    expect(worktreeHostLabel("shop", "feature-x")).toBe("feature-x.shop")
    expect(worktreeHostLabel("shop", undefined)).toBe("shop")
  })

  it("the port offset is a stable multiple of 100 from 100 to 5000", () => {
    const offsets = ["a", "b", "feature-x", "main-2", "worktree"].map(worktreeOffset)
    for (const o of offsets) {
      expect(o % 100).toBe(0)
      expect(o).toBeGreaterThanOrEqual(100)
      expect(o).toBeLessThanOrEqual(5000)
    }
    expect(worktreeOffset("feature-x")).toBe(worktreeOffset("feature-x"))
    expect(new Set(offsets).size).toBeGreaterThan(1)
  })

  it("ports move up, or down when up would pass 65535", () => {
    expect(portDelta([3000, 3001], 200)).toBe(200)
    expect(portDelta([65500], 200)).toBe(-200)
    expect(portDelta([1100], 65000)).toBe(0)
    expect(portDelta([], 200)).toBe(0)
  })
})

describe("detecting a git linked worktree", () => {
  it("gives the worktree its own namespace, offset ports and the main checkout's directory", async () => {
    const sb = sandbox()
    sb.write(gitLayout("shop", "wt/feature-x", "feature-x"))
    sb.write({ "wt/feature-x/.git": `gitdir: ${sb.path("shop/.git/worktrees/feature-x")}\n` })
    const config = await loadOk(sb, { cwd: "wt/feature-x" })
    expect(config.namespace).toBe("shop.feature-x")
    expect(Object.keys(config.daemons)).toEqual(["shop.feature-x/web"])
    const offset = worktreeOffset("feature-x")
    expect(config.worktree).toEqual({ name: "feature-x", kind: "git", main: sb.path("shop"), offset })
    const d = config.daemons["shop.feature-x/web"]!
    expect(d.worktree?.name).toBe("feature-x")
    expect(d.config.port?.expect).toEqual([3000 + offset])
    // without port.bump, a worktree's daemon may still be bumped past a taken port
    expect(d.config.port?.bump).toBe(10)
  })

  it("the main checkout keeps its plain namespace and ports", async () => {
    const sb = sandbox()
    sb.write(gitLayout("shop", "wt/feature-x", "feature-x"))
    sb.write({ "wt/feature-x/.git": `gitdir: ${sb.path("shop/.git/worktrees/feature-x")}\n` })
    const config = await loadOk(sb, { cwd: "shop" })
    expect(config.namespace).toBe("shop")
    expect(config.worktree).toBeUndefined()
    expect(config.daemons["shop/web"]?.config.port?.expect).toEqual([3000])
    expect(config.daemons["shop/web"]?.worktree).toBeUndefined()
  })

  it("a project in a subdirectory takes the name of the same subdirectory in the main checkout", async () => {
    const sb = sandbox()
    sb.write({
      "mono/.git/worktrees/fix/commondir": "../..\n",
      "wt/fix/.git": `gitdir: ${sb.path("mono/.git/worktrees/fix")}\n`,
      "wt/fix/services/api/supervisor.toml": web,
    })
    const config = await loadOk(sb, { cwd: "wt/fix/services/api" })
    expect(config.namespace).toBe("api.fix")
    expect(config.worktree?.main).toBe(sb.path("mono/services/api"))
  })

  it("a declared namespace gets the worktree's label too", async () => {
    const sb = sandbox()
    const declared = toml('namespace = "store"', "[daemons.web]", 'run = "w"')
    sb.write(gitLayout("shop", "wt/b2", "b2", declared))
    sb.write({ "wt/b2/.git": `gitdir: ${sb.path("shop/.git/worktrees/b2")}\n` })
    expect((await loadOk(sb, { cwd: "wt/b2" })).namespace).toBe("store.b2")
    expect((await loadOk(sb, { cwd: "shop" })).namespace).toBe("store")
  })

  it("worktree = false in supervisor.local.toml keeps the plain namespace", async () => {
    const sb = sandbox()
    sb.write(gitLayout("shop", "wt/x", "x"))
    sb.write({
      "wt/x/.git": `gitdir: ${sb.path("shop/.git/worktrees/x")}\n`,
      "wt/x/supervisor.local.toml": toml("worktree = false"),
    })
    const config = await loadOk(sb, { cwd: "wt/x" })
    expect(config.namespace).toBe("x")
    expect(config.daemons["x/web"]?.config.port?.expect).toEqual([3000])
  })

  it("SUPERVISOR_WORKTREE=false treats every checkout as a main one", async () => {
    const sb = sandbox()
    sb.write(gitLayout("shop", "wt/x", "x"))
    sb.write({ "wt/x/.git": `gitdir: ${sb.path("shop/.git/worktrees/x")}\n` })
    const config = await loadOk(sb, { cwd: "wt/x", env: { ...sb.env, SUPERVISOR_WORKTREE: "false" } })
    expect(config.namespace).toBe("x")
    expect(config.worktree).toBeUndefined()
  })

  it("a submodule's .git file is not a worktree", async () => {
    const sb = sandbox()
    sb.write({
      "super/.git/modules/lib/HEAD": "x\n",
      "super/lib/.git": "gitdir: ../.git/modules/lib\n",
      "super/lib/supervisor.toml": web,
    })
    const config = await loadOk(sb, { cwd: "super/lib" })
    expect(config.namespace).toBe("lib")
    expect(config.worktree).toBeUndefined()
  })

  it("a bare repository's worktree takes the repository's name", async () => {
    const sb = sandbox()
    sb.write({
      "shop.git/worktrees/dev/commondir": "../..\n",
      "dev/.git": `gitdir: ${sb.path("shop.git/worktrees/dev")}\n`,
      "dev/supervisor.toml": web,
    })
    const config = await loadOk(sb, { cwd: "dev" })
    expect(config.namespace).toBe("shop.dev")
    expect(config.worktree?.main).toBeNull()
  })

  it("a real `git worktree add` is detected", async () => {
    const sb = sandbox()
    sb.write({ "shop/supervisor.toml": web })
    const git = (cwd: string, ...args: Array<string>) =>
      run("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: sb.path(cwd) })
    await git("shop", "init", "-q", "-b", "main")
    await git("shop", "add", ".")
    await git("shop", "commit", "-q", "-m", "init")
    await git("shop", "worktree", "add", "-q", "-b", "feature-x", sb.path("trees/Feature X"))
    const config = await loadOk(sb, { cwd: "trees/Feature X" })
    expect(config.namespace).toBe("shop.feature-x")
    expect(config.worktree?.kind).toBe("git")
    expect(config.worktree?.main).toBe(sb.path("shop"))
  })
})

describe("detecting a jj workspace", () => {
  it("a workspace whose .jj/repo is a file is a worktree named after its directory", async () => {
    const sb = sandbox()
    sb.write({
      "shop/.jj/repo/store/type": "git\n",
      "shop/supervisor.toml": web,
      "ws/review/.jj/repo": `${sb.path("shop/.jj/repo")}`,
      "ws/review/supervisor.toml": web,
    })
    const config = await loadOk(sb, { cwd: "ws/review" })
    expect(config.namespace).toBe("shop.review")
    expect(config.worktree).toMatchObject({ name: "review", kind: "jj", main: sb.path("shop") })
    expect((await loadOk(sb, { cwd: "shop" })).namespace).toBe("shop")
  })
})

describe("detecting a jj workspace written by a newer jj", () => {
  it("reads .jj/repo as a path relative to the workspace's .jj directory", async () => {
    const sb = sandbox()
    sb.write({
      "shop/.jj/repo/store/type": "git\n",
      "ws/docs/.jj/repo": "../../../shop/.jj/repo",
      "ws/docs/supervisor.toml": web,
    })
    const config = await loadOk(sb, { cwd: "ws/docs" })
    expect(config.namespace).toBe("shop.docs")
    expect(config.worktree?.main).toBe(sb.path("shop"))
  })
})

describe("a plain copy", () => {
  it("keeps the namespace of its directory: nothing ties it to the original", async () => {
    const sb = sandbox()
    sb.write({ "a/shop/supervisor.toml": web, "b/shop/supervisor.toml": web })
    expect((await loadOk(sb, { cwd: "b/shop" })).namespace).toBe("shop")
  })

  it('worktree = "name" in supervisor.local.toml makes it a worktree of its own', async () => {
    const sb = sandbox()
    sb.write({
      "b/shop/supervisor.toml": web,
      "b/shop/supervisor.local.toml": toml('worktree = "copy-2"'),
    })
    const config = await loadOk(sb, { cwd: "b/shop" })
    expect(config.namespace).toBe("shop.copy-2")
    expect(config.worktree).toMatchObject({ name: "copy-2", kind: "copy", main: null })
    expect(config.daemons["shop.copy-2/web"]?.config.port?.expect).toEqual([3000 + worktreeOffset("copy-2")])
  })

  it("worktree in a global file is refused, naming the file, line and fix", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml("# mine", 'worktree = "x"') })
    const p = only(await loadErr(sb, { cwd: "w" }), "InvalidValue")
    expect(p).toMatchObject({
      file: sb.path("home/.config/supervisor/config.toml"),
      line: 2,
      key: "worktree",
    })
    expect(p.hint).toContain("supervisor.local.toml")
  })

  it("a namespace ending in a dot cannot take a worktree's label", async () => {
    const sb = sandbox()
    sb.write({ "b/shop/supervisor.toml": toml('namespace = "shop."', 'worktree = "x"') })
    const err = await loadErr(sb, { cwd: "b/shop" })
    const p = only(err, "InvalidNamespace")
    expect(p.file).toBe(sb.path("b/shop/supervisor.toml"))
    expect(p.message).toContain('"shop..x"')
  })
})
