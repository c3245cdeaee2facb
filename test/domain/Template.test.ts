import { describe, expect, it } from "vitest"
import {
  daemonRefs,
  hasTemplate,
  parseTemplateName,
  renderTemplate,
  TEMPLATE_SETTINGS,
  type TemplateRef,
  templateProblem,
  templateRefs,
} from "../../src/domain/Template.js"

const daemonPort = (daemon: string) => ({ _tag: "OtherDaemon", daemon, field: "port" }) as const

describe("parseTemplateName", () => {
  it.each([
    ["daemon.id", { _tag: "DaemonField", field: "id" }],
    ["daemon.name", { _tag: "DaemonField", field: "name" }],
    ["daemon.namespace", { _tag: "DaemonField", field: "namespace" }],
    ["daemon.dir", { _tag: "DaemonField", field: "dir" }],
    ["daemon.port", { _tag: "DaemonPort", index: 0 }],
    ["daemon.ports[2]", { _tag: "DaemonPort", index: 2 }],
    [" daemon.ports[ 1 ] ", { _tag: "DaemonPort", index: 1 }],
    ["daemons.db.port", daemonPort("db")],
    ["daemons.ns/db.proxy_url", { _tag: "OtherDaemon", daemon: "ns/db", field: "proxy_url" }],
    ["env.DATABASE_URL", { _tag: "Env", variable: "DATABASE_URL" }],
    ["settings.proxy.tld", { _tag: "Setting", key: "proxy.tld" }],
  ])("%j names %j", (inner, name) => {
    expect(parseTemplateName(inner)).toEqual(name)
  })

  it.each([
    "daemon.pid",
    "daemon.ports[x]",
    "daemons.db.host",
    "env.NOT-A-NAME",
    "settings.proxy.nope",
    "settings.api.token",
    "settings.logs.archive_hook",
    "",
  ])("%j names nothing", (inner) => {
    expect(parseTemplateName(inner)).toBeUndefined()
  })

  it("every scalar setting is a template name, but the API token", () => {
    expect(TEMPLATE_SETTINGS).toContain("general.shell")
    expect(TEMPLATE_SETTINGS).toContain("proxy.port")
    expect(TEMPLATE_SETTINGS).not.toContain("api.token")
  })
})

describe("templateRefs", () => {
  it("finds a short daemon reference", () => {
    expect(templateRefs("{{ daemons.db.port }}")).toEqual({
      refs: [{ text: "{{ daemons.db.port }}", name: daemonPort("db") }],
    })
  })

  it("finds a qualified daemon reference", () => {
    expect(daemonRefs("{{ daemons.ns/db.port }}")).toEqual([
      { text: "{{ daemons.ns/db.port }}", daemon: "ns/db", field: "port" },
    ])
  })

  it("accepts placeholders without spaces and names with dots", () => {
    expect(daemonRefs("{{daemons.api.v2.port}}")).toEqual([
      { text: "{{daemons.api.v2.port}}", daemon: "api.v2", field: "port" },
    ])
  })

  it("finds every placeholder in a longer string", () => {
    const { refs, unknown } = templateRefs(
      "http://{{ env.HOST }}:{{ daemons.api.port }}/x?db={{ daemons.shop/db.port }}&me={{ daemon.id }}",
    )
    expect(refs.map((r) => r.name._tag)).toEqual(["Env", "OtherDaemon", "OtherDaemon", "DaemonField"])
    expect(unknown).toBeUndefined()
  })

  it("finds nothing in a plain string", () => {
    expect(templateRefs("http://localhost:3000/health")).toEqual({ refs: [] })
    expect(templateRefs("{ not a template }").refs).toEqual([])
  })

  it.each([
    ["{{ foo }}", { name: "foo" }],
    ["{{ daemons.db.host }}", { name: "daemons.db.host", suggestion: "daemons.db.port" }],
    ["{{ daemons.db.proxyurl }}", { name: "daemons.db.proxyurl", suggestion: "daemons.db.proxy_url" }],
    ["{{ daemon.db.port }}", { name: "daemon.db.port", suggestion: "daemons.db.port" }],
    ["{{ daemon.nmae }}", { name: "daemon.nmae", suggestion: "daemon.name" }],
    ["{{ daemons.port }}", { name: "daemons.port", suggestion: "daemon.port" }],
    ["{{ envv.HOME }}", { name: "envv.HOME", suggestion: "env.HOME" }],
    ["{{ settings.proxy.tdl }}", { name: "settings.proxy.tdl", suggestion: "settings.proxy.tld" }],
    ["{{ settings.tld }}", { name: "settings.tld", suggestion: "settings.proxy.tld" }],
    ["{{}}", { name: "" }],
  ])("reports the unknown variable of %j with the closest name", (value, unknown) => {
    expect(templateRefs(value).unknown).toEqual(unknown)
  })

  it("keeps the references found before the first unknown variable", () => {
    expect(templateRefs("{{ daemons.db.port }} {{ nope }} {{ daemons.x.port }}")).toEqual({
      refs: [{ text: "{{ daemons.db.port }}", name: daemonPort("db") }],
      unknown: { name: "nope" },
    })
  })
})

describe("templateProblem", () => {
  it("is undefined for valid templates and plain strings", () => {
    expect(templateProblem("{{ daemons.db.port }}")).toBeUndefined()
    expect(
      templateProblem("{{ daemons.ns/db.port }} {{ env.HOME }} {{ settings.general.shell }}"),
    ).toBeUndefined()
    expect(templateProblem("plain")).toBeUndefined()
  })

  it("names the unknown variable and the closest one", () => {
    expect(templateProblem("port {{ daemon.db.port }}")).toBe(
      'unknown template variable "daemon.db.port"; did you mean {{ daemons.db.port }}?',
    )
  })

  it("lists every variable when none is close", () => {
    expect(templateProblem("{{ whatever }}")).toBe(
      'unknown template variable "whatever"; the variables are {{ daemon.id }}, {{ daemon.name }}, ' +
        "{{ daemon.namespace }}, {{ daemon.dir }}, {{ daemon.instance }}, {{ daemon.port }}, {{ daemon.ports[N] }}, " +
        "{{ daemons.<name>.port }}, {{ daemons.<name>.proxy_url }}, {{ env.<VAR> }}, {{ settings.<group>.<key> }}",
    )
  })
})

describe("hasTemplate", () => {
  it("detects a placeholder", () => {
    expect(hasTemplate("{{ daemons.db.port }}")).toBe(true)
    expect(hasTemplate("a {{x}} b")).toBe(true)
    expect(hasTemplate("no braces")).toBe(false)
    expect(hasTemplate("{ single }")).toBe(false)
  })
})

describe("renderTemplate", () => {
  const ports: Record<string, string> = { db: "5432", "ns/db": "6543", api: "3000" }
  const render = (ref: TemplateRef) =>
    ref.name._tag === "OtherDaemon" ? (ports[ref.name.daemon] ?? "?") : `<${ref.name._tag}>`

  it("replaces each placeholder with what render gives", () => {
    expect(renderTemplate("{{ daemons.db.port }}", render)).toBe("5432")
    expect(renderTemplate("{{daemons.ns/db.port}}", render)).toBe("6543")
    expect(renderTemplate("http://localhost:{{ daemons.api.port }}/db/{{ daemons.db.port }}", render)).toBe(
      "http://localhost:3000/db/5432",
    )
    expect(renderTemplate("{{ env.X }}-{{ daemon.dir }}", render)).toBe("<Env>-<DaemonField>")
  })

  it("leaves a string without placeholders unchanged", () => {
    expect(renderTemplate("http://localhost:3000", render)).toBe("http://localhost:3000")
  })

  it("keeps a placeholder that names nothing as written", () => {
    expect(renderTemplate("{{ foo }}", render)).toBe("{{ foo }}")
  })
})

describe('"shell" syntax (run, env, hooks): only names under a root are templates', () => {
  const render = (ref: TemplateRef) => (ref.name._tag === "OtherDaemon" ? "8080" : "X")

  it("renders templates and keeps every other brace as written", () => {
    const run =
      "docker ps --format '{{.Names}}' && curl http://127.0.0.1:{{ daemons.web.port }}/ | awk '{{print}}'" +
      // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
      " && echo ${HOME} {} {{ .Env.X }} && jq '{a: .b}' && echo {{ item.name }} {{ port }}"
    expect(templateRefs(run, "shell")).toEqual({
      refs: [{ text: "{{ daemons.web.port }}", name: daemonPort("web") }],
    })
    expect(templateProblem(run, "shell")).toBeUndefined()
    expect(renderTemplate(run, render, "shell")).toBe(
      "docker ps --format '{{.Names}}' && curl http://127.0.0.1:8080/ | awk '{{print}}'" +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
        " && echo ${HOME} {} {{ .Env.X }} && jq '{a: .b}' && echo {{ item.name }} {{ port }}",
    )
  })

  it("reports a placeholder under a root, or a near miss of one, that names nothing", () => {
    expect(templateProblem("echo {{ daemons.web.pid }}", "shell")).toBe(
      'unknown template variable "daemons.web.pid"; did you mean {{ daemons.web.port }}?',
    )
    expect(templateRefs("echo {{ deamon.port }}", "shell").unknown).toEqual({
      name: "deamon.port",
      suggestion: "daemon.port",
    })
    expect(templateRefs("echo {{ setting.proxy.tld }}", "shell").unknown).toEqual({
      name: "setting.proxy.tld",
      suggestion: "settings.proxy.tld",
    })
  })

  it("the strict syntax (ready_* keys) still rejects every other placeholder", () => {
    expect(templateRefs("{{.Names}}").unknown).toEqual({ name: ".Names" })
  })
})
