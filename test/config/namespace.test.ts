import { describe, expect, it } from "vitest"
import { loadErr, loadOk, only, tags, toml, useSandbox } from "./helpers.js"

const sandbox = useSandbox()

describe("namespace rule 1: global files use `global`", () => {
  it("system and user daemons are in the global namespace", async () => {
    const sb = sandbox()
    sb.write({
      "etc/supervisor/config.toml": toml("[daemons.sys]", 'run = "sys"'),
      "home/.config/supervisor/config.toml": toml("[daemons.usr]", 'run = "usr"'),
    })
    const config = await loadOk(sb, { cwd: "w" })
    expect(Object.keys(config.daemons).sort()).toEqual(["global/sys", "global/usr"])
    expect(config.files.map((f) => f.namespace)).toEqual(["global", "global"])
  })

  it('accepts an explicit namespace = "global"', async () => {
    const sb = sandbox()
    sb.write({
      "etc/supervisor/config.toml": toml('namespace = "global"', "[daemons.sys]", 'run = "sys"'),
      "home/.config/supervisor/config.toml": toml('namespace = "global"', "[daemons.usr]", 'run = "usr"'),
    })
    const config = await loadOk(sb, { cwd: "w" })
    expect(Object.keys(config.daemons).sort()).toEqual(["global/sys", "global/usr"])
  })

  it.each([
    ["user", "home/.config/supervisor/config.toml"],
    ["system", "etc/supervisor/config.toml"],
  ])("rejects another namespace in the %s config (GlobalNamespaceRequired)", async (_level, rel) => {
    const sb = sandbox()
    sb.write({ [rel]: toml("# my global config", 'namespace = "mine"', "[daemons.redis]", 'run = "redis"') })
    const err = await loadErr(sb, { cwd: "w" })
    expect(tags(err)).toEqual(["GlobalNamespaceRequired"])
    const p = only(err, "GlobalNamespaceRequired")
    expect(p.file).toBe(sb.path(rel))
    expect(p.line).toBe(2)
    expect(p.key).toBe("namespace")
    expect(p.message).toContain('"global"')
    expect(p.message).toContain('"mine"')
    expect(p.hint).toMatch(/namespace = "global"|remove the `namespace` line/)
  })

  it("an invalid namespace string in a global file is reported once, as GlobalNamespaceRequired", async () => {
    const sb = sandbox()
    sb.write({ "home/.config/supervisor/config.toml": toml('namespace = "not valid"') })
    const err = await loadErr(sb, { cwd: "w" })
    expect(tags(err)).toEqual(["GlobalNamespaceRequired"])
  })
})

describe("namespace rule 2: declared namespace, else the parent directory name", () => {
  it("uses the directory name when no namespace is declared", async () => {
    const sb = sandbox()
    sb.write({ "code/my-app_2.0/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    const config = await loadOk(sb, { cwd: "code/my-app_2.0" })
    expect(Object.keys(config.daemons)).toEqual(["my-app_2.0/web"])
    expect(config.namespace).toBe("my-app_2.0")
  })

  it("uses the declared namespace over the directory name", async () => {
    const sb = sandbox()
    sb.write({ "code/app/supervisor.toml": toml('namespace = "shop"', "[daemons.web]", 'run = "web"') })
    const config = await loadOk(sb, { cwd: "code/app" })
    expect(Object.keys(config.daemons)).toEqual(["shop/web"])
    expect(config.files[0]!.namespace).toBe("shop")
    expect(config.namespace).toBe("shop")
  })

  it("an invalid declared namespace fails once with InvalidNamespace on the namespace line", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("", 'namespace = "bad name"', "[daemons.web]", 'run = "web"') })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["InvalidNamespace"])
    const p = only(err, "InvalidNamespace")
    expect(p.file).toBe(sb.path("app/supervisor.toml"))
    expect(p.line).toBe(2)
    expect(p.key).toBe("namespace")
    expect(p.message).toContain('"bad name"')
    expect(p.message).toContain("spaces")
    expect(p.hint).toBeDefined()
  })

  it("a non-string namespace is an InvalidValue", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.toml": toml("namespace = 42") })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "InvalidValue")
    expect(p.key).toBe("namespace")
    expect(p.line).toBe(1)
    expect(p.message).toContain("42")
  })
})

describe("namespace rule 3: files in .config/ use the parent of .config", () => {
  it("derives the namespace from the project directory, not `.config`", async () => {
    const sb = sandbox()
    sb.write({
      "proj/.config/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "proj/.config/supervisor.local.toml": toml("[daemons.worker]", 'run = "worker"'),
    })
    const config = await loadOk(sb, { cwd: "proj" })
    expect(Object.keys(config.daemons).sort()).toEqual(["proj/web", "proj/worker"])
    expect(config.files.map((f) => f.namespace)).toEqual(["proj", "proj"])
  })

  it("cwd inside .config loads the .config files once, as the project's", async () => {
    const sb = sandbox()
    sb.write({
      "proj/.config/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "proj/.config/supervisor.local.toml": toml("[daemons.web]", "retry = 1"),
    })
    const config = await loadOk(sb, { cwd: "proj/.config" })
    expect(Object.keys(config.daemons)).toEqual(["proj/web"])
    expect(config.files).toEqual([
      { path: sb.path("proj/.config/supervisor.toml"), level: "project", namespace: "proj" },
      { path: sb.path("proj/.config/supervisor.local.toml"), level: "project", namespace: "proj" },
    ])
    expect(config.namespace).toBe("proj")
    expect(config.daemons["proj/web"]!.config.dir).toBe(sb.path("proj"))
  })
})

describe("namespace rule 4: an invalid derived directory name needs a declared namespace", () => {
  it.each([
    ["my app", "spaces"],
    ["a--b", "double dash"],
    ["projé", "ASCII"],
    ["app-", "dash"],
  ])("directory %j fails with InvalidNamespace (%s)", async (dir, rule) => {
    const sb = sandbox()
    sb.write({ [`code/${dir}/supervisor.toml`]: toml("[daemons.web]", 'run = "web"') })
    const err = await loadErr(sb, { cwd: `code/${dir}` })
    expect(tags(err)).toEqual(["InvalidNamespace"])
    const p = only(err, "InvalidNamespace")
    expect(p.file).toBe(sb.path(`code/${dir}/supervisor.toml`))
    expect(p.message).toContain(JSON.stringify(dir))
    expect(p.message).toContain(rule)
    expect(p.hint).toContain("namespace")
    expect(p.hint).toMatch(/namespace = "/)
  })

  it("a .config file in an invalid directory names that directory, not .config", async () => {
    const sb = sandbox()
    sb.write({ "code/a--b/.config/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    const err = await loadErr(sb, { cwd: "code/a--b" })
    const p = only(err, "InvalidNamespace")
    expect(p.file).toBe(sb.path("code/a--b/.config/supervisor.toml"))
    expect(p.message).toContain('"a--b"')
    expect(p.message).not.toContain('".config"')
  })

  it("declaring a namespace fixes an invalid directory name", async () => {
    const sb = sandbox()
    sb.write({ "code/my app/supervisor.toml": toml('namespace = "myapp"', "[daemons.web]", 'run = "web"') })
    const config = await loadOk(sb, { cwd: "code/my app" })
    expect(Object.keys(config.daemons)).toEqual(["myapp/web"])
    expect(config.daemons["myapp/web"]!.config.dir).toBe(sb.path("code/my app"))
  })

  it("an invalid directory without a config file is not a problem", async () => {
    const sb = sandbox()
    sb.write({ "code/my app/sub/supervisor.toml": toml("[daemons.web]", 'run = "web"') })
    const config = await loadOk(sb, { cwd: "code/my app/sub" })
    expect(Object.keys(config.daemons)).toEqual(["sub/web"])
  })
})

describe("namespace rule 5: .local files share the sibling's namespace", () => {
  it("a .local file inherits the sibling's declared namespace", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml('namespace = "shop"', "[daemons.web]", 'run = "web"'),
      "app/supervisor.local.toml": toml("[daemons.web]", "retry = 2", "[daemons.extra]", 'run = "extra"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons).sort()).toEqual(["shop/extra", "shop/web"])
    expect(config.daemons["shop/web"]!.config.retry).toBe(2)
    expect(config.files.map((f) => f.namespace)).toEqual(["shop", "shop"])
  })

  it("the .config/.local pair shares a namespace too", async () => {
    const sb = sandbox()
    sb.write({
      "app/.config/supervisor.toml": toml('namespace = "shop"'),
      "app/.config/supervisor.local.toml": toml("[daemons.web]", 'run = "web"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons)).toEqual(["shop/web"])
  })

  it("equal declared values in both files are fine", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml('namespace = "shop"'),
      "app/supervisor.local.toml": toml('namespace = "shop"', "[daemons.web]", 'run = "web"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons)).toEqual(["shop/web"])
  })

  it("differing declared values fail with NamespaceMismatch on the .local file", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml('namespace = "shop"', "[daemons.web]", 'run = "web"'),
      "app/supervisor.local.toml": toml("# local overrides", 'namespace = "store"'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    expect(tags(err)).toEqual(["NamespaceMismatch"])
    const p = only(err, "NamespaceMismatch")
    expect(p.file).toBe(sb.path("app/supervisor.local.toml"))
    expect(p.line).toBe(2)
    expect(p.key).toBe("namespace")
    expect(p.message).toContain('"store"')
    expect(p.message).toContain('"shop"')
    expect(p.message).toContain(sb.path("app/supervisor.toml"))
    expect(p.hint).toContain('namespace = "shop"')
  })

  it("differing declared values in the .config pair fail too", async () => {
    const sb = sandbox()
    sb.write({
      "app/.config/supervisor.toml": toml('namespace = "one"'),
      "app/.config/supervisor.local.toml": toml('namespace = "two"'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "NamespaceMismatch")
    expect(p.file).toBe(sb.path("app/.config/supervisor.local.toml"))
    expect(p.message).toContain('"two"')
    expect(p.message).toContain('"one"')
  })

  it("a .local file may not redeclare away from the sibling's derived namespace", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "app/supervisor.local.toml": toml('namespace = "elsewhere"'),
    })
    const err = await loadErr(sb, { cwd: "app" })
    const p = only(err, "NamespaceMismatch")
    expect(p.message).toContain('"app"')
    expect(p.hint).toContain('namespace = "app"')
  })

  it("a .local file declaring the sibling's derived namespace is fine", async () => {
    const sb = sandbox()
    sb.write({
      "app/supervisor.toml": toml("[daemons.web]", 'run = "web"'),
      "app/supervisor.local.toml": toml('namespace = "app"', "[daemons.web]", "retry = true"),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(config.daemons["app/web"]!.config.retry).toBe(true)
  })

  it("a .local file inside an invalid directory inherits the sibling's declared namespace", async () => {
    const sb = sandbox()
    sb.write({
      "code/my app/supervisor.toml": toml('namespace = "myapp"'),
      "code/my app/supervisor.local.toml": toml("[daemons.web]", 'run = "web"'),
    })
    const config = await loadOk(sb, { cwd: "code/my app" })
    expect(Object.keys(config.daemons)).toEqual(["myapp/web"])
  })

  it("a .local file without a sibling derives its own namespace from the directory", async () => {
    const sb = sandbox()
    sb.write({ "app/supervisor.local.toml": toml("[daemons.web]", 'run = "web"') })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons)).toEqual(["app/web"])
    expect(config.files).toEqual([
      { path: sb.path("app/supervisor.local.toml"), level: "project", namespace: "app" },
    ])
  })

  it("a .local file without a sibling may declare its own namespace", async () => {
    const sb = sandbox()
    sb.write({
      "app/.config/supervisor.local.toml": toml('namespace = "mine"', "[daemons.web]", 'run = "web"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons)).toEqual(["mine/web"])
  })

  it("a .local file without a sibling in an invalid directory fails with InvalidNamespace", async () => {
    const sb = sandbox()
    sb.write({ "code/a--b/supervisor.local.toml": toml("[daemons.web]", 'run = "web"') })
    const err = await loadErr(sb, { cwd: "code/a--b" })
    const p = only(err, "InvalidNamespace")
    expect(p.file).toBe(sb.path("code/a--b/supervisor.local.toml"))
  })

  it("the .local of supervisor.toml is not tied to .config/supervisor.toml", async () => {
    const sb = sandbox()
    // .config/supervisor.toml declares "one"; supervisor.local.toml has no sibling of its own.
    sb.write({
      "app/.config/supervisor.toml": toml('namespace = "one"', "[daemons.a]", 'run = "a"'),
      "app/supervisor.local.toml": toml("[daemons.b]", 'run = "b"'),
    })
    const config = await loadOk(sb, { cwd: "app" })
    expect(Object.keys(config.daemons).sort()).toEqual(["app/b", "one/a"])
  })
})
