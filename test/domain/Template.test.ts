import { describe, expect, it } from "vitest"
import { hasTemplate, renderTemplate, templateProblem, templateRefs } from "../../src/domain/Template.js"

describe("templateRefs", () => {
  it("finds a short daemon reference", () => {
    expect(templateRefs("{{ daemons.db.port }}")).toEqual({
      refs: [{ text: "{{ daemons.db.port }}", daemon: "db" }],
    })
  })

  it("finds a qualified daemon reference", () => {
    expect(templateRefs("{{ daemons.ns/db.port }}").refs).toEqual([
      { text: "{{ daemons.ns/db.port }}", daemon: "ns/db" },
    ])
  })

  it("accepts placeholders without spaces and names with dots", () => {
    expect(templateRefs("{{daemons.api.v2.port}}").refs).toEqual([
      { text: "{{daemons.api.v2.port}}", daemon: "api.v2" },
    ])
  })

  it("finds every placeholder in a longer string", () => {
    const { refs, unknown } = templateRefs(
      "http://localhost:{{ daemons.api.port }}/x?db={{ daemons.shop/db.port }}",
    )
    expect(refs.map((r) => r.daemon)).toEqual(["api", "shop/db"])
    expect(unknown).toBeUndefined()
  })

  it("finds nothing in a plain string", () => {
    expect(templateRefs("http://localhost:3000/health")).toEqual({ refs: [] })
    expect(templateRefs("{ not a template }").refs).toEqual([])
  })

  it.each([
    ["{{ foo }}", "foo"],
    ["{{ daemons.db.host }}", "daemons.db.host"],
    ["{{ env.HOME }}", "env.HOME"],
    ["{{ daemons.port }}", "daemons.port"],
    ["{{}}", ""],
  ])("reports the unknown variable of %j", (value, unknown) => {
    expect(templateRefs(value).unknown).toBe(unknown)
  })

  it("keeps the references found before the first unknown variable", () => {
    expect(templateRefs("{{ daemons.db.port }} {{ nope }} {{ daemons.x.port }}")).toEqual({
      refs: [{ text: "{{ daemons.db.port }}", daemon: "db" }],
      unknown: "nope",
    })
  })
})

describe("templateProblem", () => {
  it("is undefined for valid templates and plain strings", () => {
    expect(templateProblem("{{ daemons.db.port }}")).toBeUndefined()
    expect(templateProblem("{{ daemons.ns/db.port }}")).toBeUndefined()
    expect(templateProblem("plain")).toBeUndefined()
  })

  it("names the unknown variable and the one that exists", () => {
    expect(templateProblem("port {{ daemon.db.port }}")).toBe(
      'unknown template variable "daemon.db.port"; the only one is {{ daemons.<name>.port }}',
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
  const lookup = (daemon: string) => ports[daemon] ?? `<${daemon}>`

  it("replaces each placeholder with the looked-up port", () => {
    expect(renderTemplate("{{ daemons.db.port }}", lookup)).toBe("5432")
    expect(renderTemplate("{{daemons.ns/db.port}}", lookup)).toBe("6543")
    expect(renderTemplate("http://localhost:{{ daemons.api.port }}/db/{{ daemons.db.port }}", lookup)).toBe(
      "http://localhost:3000/db/5432",
    )
  })

  it("leaves a string without placeholders unchanged", () => {
    expect(renderTemplate("http://localhost:3000", lookup)).toBe("http://localhost:3000")
  })

  it("passes an unknown variable, trimmed, to the lookup", () => {
    expect(renderTemplate("{{ foo }}", lookup)).toBe("<foo>")
  })
})

describe('"shell" syntax (run, env): only {{ daemons.… }} is a template', () => {
  const lookup = (daemon: string) => ({ web: "8080" })[daemon] ?? `<${daemon}>`

  it("renders daemon ports and keeps every other {{ ... }} as written", () => {
    const run =
      "docker ps --format '{{.Names}}' && curl http://127.0.0.1:{{ daemons.web.port }}/ | awk '{{print}}'"
    expect(templateRefs(run, "shell")).toEqual({ refs: [{ text: "{{ daemons.web.port }}", daemon: "web" }] })
    expect(templateProblem(run, "shell")).toBeUndefined()
    expect(renderTemplate(run, lookup, "shell")).toBe(
      "docker ps --format '{{.Names}}' && curl http://127.0.0.1:8080/ | awk '{{print}}'",
    )
  })

  it("reports a daemons. placeholder that is not a port, and the near miss daemon.", () => {
    expect(templateProblem("echo {{ daemons.web.pid }}", "shell")).toBe(
      'unknown template variable "daemons.web.pid"; the only one is {{ daemons.<name>.port }}',
    )
    expect(templateRefs("echo {{ daemon.web.port }}", "shell").unknown).toBe("daemon.web.port")
  })

  it("the strict syntax (ready_* keys) still rejects every other placeholder", () => {
    expect(templateRefs("{{.Names}}").unknown).toBe(".Names")
  })
})
