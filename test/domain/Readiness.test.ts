import { Duration, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  Port,
  ReadyCmdOption,
  ReadyHttpOption,
  ReadyOutputOption,
  ReadyPortOption,
  TemplateString,
} from "../../src/domain/Readiness.js"
import { decoder, messages, paths } from "./helpers.js"

const ms = (d: Duration.Duration | undefined) => (d === undefined ? undefined : Duration.toMillis(d))

describe("Port", () => {
  const { ok, fail } = decoder(Port)

  it("accepts 1 to 65535", () => {
    expect(ok(1)).toBe(1)
    expect(ok(3000)).toBe(3000)
    expect(ok(65535)).toBe(65535)
  })

  it.each([0, -1, 65536, 70000])("rejects %j as out of range", (value) => {
    expect(messages(fail(value))).toContain("expected a TCP port number between 1 and 65535")
  })

  it("rejects a fraction and a numeric string", () => {
    expect(messages(fail(80.5))).toContain("Expected an integer, actual 80.5")
    expect(messages(fail("3000"))).toContain('Expected number, actual "3000"')
  })
})

describe("TemplateString", () => {
  const { ok, fail } = decoder(TemplateString)

  it("accepts plain strings and daemon port templates", () => {
    expect(ok("http://localhost:3000")).toBe("http://localhost:3000")
    expect(ok("{{ daemons.db.port }}")).toBe("{{ daemons.db.port }}")
    expect(ok("{{ daemons.ns/db.port }}")).toBe("{{ daemons.ns/db.port }}")
  })

  it("rejects an unknown variable", () => {
    expect(messages(fail("{{ daemons.db.host }}"))).toContain('unknown template variable "daemons.db.host"')
  })
})

describe("ReadyOutputOption", () => {
  const { ok, fail } = decoder(ReadyOutputOption)

  it("turns a regex string into { pattern }", () => {
    expect(ok("listening on port \\d+")).toEqual({ pattern: "listening on port \\d+" })
  })

  it("accepts { pattern, timeout }", () => {
    const r = ok({ pattern: "ready", timeout: "30s" })
    expect(r.pattern).toBe("ready")
    expect(ms(r.timeout)).toBe(30_000)
  })

  it("accepts a template, compiled only after rendering", () => {
    expect(ok("port {{ daemons.db.port }}")).toEqual({ pattern: "port {{ daemons.db.port }}" })
  })

  it("rejects an invalid regex in both forms", () => {
    expect(messages(fail("("))).toContain('invalid regular expression "("')
    expect(messages(fail({ pattern: "[a-" }))).toContain('invalid regular expression "[a-"')
  })

  it("rejects an unknown template variable", () => {
    expect(messages(fail("{{ foo }}"))).toContain('unknown template variable "foo"')
  })

  it("rejects a bad timeout and unknown keys", () => {
    expect(paths(fail({ pattern: "x", timeout: "30" }))).toContain("timeout")
    expect(messages(fail({ pattern: "x", timeout: "30" }))).toContain("has no unit")
    expect(paths(fail({ pattern: "x", timout: "30s" }))).toContain("timout")
  })

  it("encodes the timeout back to a string", () => {
    expect(Schema.encodeSync(ReadyOutputOption)({ pattern: "x", timeout: Duration.seconds(30) })).toEqual({
      pattern: "x",
      timeout: "30s",
    })
  })
})

describe("ReadyHttpOption", () => {
  const { ok, fail } = decoder(ReadyHttpOption)

  it("turns a URL string into { url, status: [] }", () => {
    expect(ok("http://localhost:3000/health")).toEqual({ url: "http://localhost:3000/health", status: [] })
  })

  it("accepts { url, status, timeout }", () => {
    const r = ok({ url: "http://localhost:{{ daemons.api.port }}/", status: [401, 404], timeout: "1m" })
    expect(r.url).toBe("http://localhost:{{ daemons.api.port }}/")
    expect(r.status).toEqual([401, 404])
    expect(ms(r.timeout)).toBe(60_000)
  })

  it("defaults status to [] in the object form", () => {
    expect(ok({ url: "http://x" })).toEqual({ url: "http://x", status: [] })
  })

  it("rejects statuses outside 100-599, a missing url and bad templates", () => {
    expect(paths(fail({ url: "http://x", status: [600] }))).toContain("status.0")
    expect(paths(fail({ url: "http://x", status: [99] }))).toContain("status.0")
    expect(paths(fail({ status: [200] }))).toContain("url")
    expect(messages(fail("http://localhost:{{ port }}"))).toContain('unknown template variable "port"')
    expect(messages(fail(8080))).toContain("Expected string")
  })

  it.each(["localhost:3000", "not a url", "ftp://x/", "127.0.0.1:3000/health"])(
    "rejects %j: not an http:// or https:// URL (a typo must not make a start wait forever)",
    (url) => {
      const expected = `expected an http:// or https:// URL such as "http://127.0.0.1:3000/health", got ${JSON.stringify(url)}`
      expect(messages(fail(url))).toContain(expected)
      expect(messages(fail({ url }))).toContain(expected)
    },
  )

  it("accepts https, any case of the scheme, and a URL that starts with a template", () => {
    expect(ok("https://x/").url).toBe("https://x/")
    expect(ok("HTTP://x/").url).toBe("HTTP://x/")
    expect(ok("{{ daemons.api.port }}").url).toBe("{{ daemons.api.port }}")
  })
})

describe("ReadyPortOption", () => {
  const { ok, fail } = decoder(ReadyPortOption)

  it("turns a port into { port }", () => {
    expect(ok(5432)).toEqual({ port: 5432 })
  })

  it("turns a template string into { port }", () => {
    expect(ok("{{ daemons.db.port }}")).toEqual({ port: "{{ daemons.db.port }}" })
  })

  it("accepts { port, timeout } with a number or a template", () => {
    const r = ok({ port: 5432, timeout: "10s" })
    expect(r.port).toBe(5432)
    expect(ms(r.timeout)).toBe(10_000)
    expect(ok({ port: "{{ daemons.ns/db.port }}" })).toEqual({ port: "{{ daemons.ns/db.port }}" })
  })

  it("rejects out-of-range ports in both forms", () => {
    expect(messages(fail(0))).toContain("between 1 and 65535")
    expect(messages(fail(65536))).toContain("between 1 and 65535")
    expect(paths(fail({ port: 70000 }))).toContain("port")
    expect(fail(3000.5).length).toBeGreaterThan(0)
  })

  it("rejects an unknown template variable", () => {
    expect(messages(fail("{{ daemons.db.url }}"))).toContain("unknown template variable")
  })

  it("rejects a string without a template, in both forms", () => {
    expect(messages(fail("localhost"))).toContain(
      'or a template such as "{{ daemons.db.port }}", got "localhost"',
    )
    expect(messages(fail(""))).toContain('got ""')
    expect(messages(fail("5432"))).toContain("a port number (without quotes)")
    expect(paths(fail({ port: "abc" }))).toContain("port")
  })
})

describe("ReadyCmdOption", () => {
  const { ok, fail } = decoder(ReadyCmdOption)

  it("turns a command into { run }", () => {
    expect(ok("pg_isready -p {{ daemons.db.port }}")).toEqual({ run: "pg_isready -p {{ daemons.db.port }}" })
  })

  it("accepts { run, timeout }", () => {
    const r = ok({ run: "curl -f localhost", timeout: "2m" })
    expect(r.run).toBe("curl -f localhost")
    expect(ms(r.timeout)).toBe(120_000)
  })

  it("rejects a non-string, a missing run and an unknown variable", () => {
    expect(fail(true).length).toBeGreaterThan(0)
    expect(paths(fail({ timeout: "2m" }))).toContain("run")
    expect(messages(fail("check {{ nope }}"))).toContain('unknown template variable "nope"')
  })
})
