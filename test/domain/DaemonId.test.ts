import { Either, JSONSchema, Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  DaemonId,
  DaemonIdObject,
  DaemonRef,
  parseDaemonRef,
  parseQualified,
  toIdObject,
} from "../../src/domain/DaemonId.js"
import { decoder, left, messages, right } from "./helpers.js"

const id = (namespace: string, name: string) => new DaemonId({ namespace, name })

describe("DaemonId", () => {
  it("has the qualified form <namespace>/<name>", () => {
    expect(id("shop", "api").qualified).toBe("shop/api")
  })

  it("has a filesystem-safe form with -- instead of /", () => {
    expect(id("shop", "api").safePath).toBe("shop--api")
    expect(id("global", "my-app.v2").safePath).toBe("global--my-app.v2")
    expect(id("shop", "api").safePath).not.toContain("/")
  })

  it("prints as its qualified form", () => {
    expect(String(id("shop", "api"))).toBe("shop/api")
    expect(`${id("global", "db")}`).toBe("global/db")
  })

  it("decodes from and encodes to a plain { namespace, name } object", () => {
    const decoded = Schema.decodeUnknownSync(DaemonId)({ namespace: "shop", name: "api" })
    expect(decoded).toBeInstanceOf(DaemonId)
    expect(decoded.qualified).toBe("shop/api")
    expect(Schema.encodeSync(DaemonId)(decoded)).toEqual({ namespace: "shop", name: "api" })
  })
})

describe("toIdObject", () => {
  it("gives the four fields of the API id object", () => {
    expect(toIdObject(id("shop", "api"))).toEqual({
      namespace: "shop",
      name: "api",
      qualified: "shop/api",
      safe_path: "shop--api",
    })
  })

  it("produces a valid DaemonIdObject", () => {
    const obj = toIdObject(id("global", "db"))
    expect(Schema.decodeUnknownSync(DaemonIdObject)(obj)).toEqual(obj)
  })

  it("DaemonIdObject requires all four fields", () => {
    const r = Schema.decodeUnknownEither(DaemonIdObject)({ namespace: "a", name: "b", qualified: "a/b" })
    expect(Either.isLeft(r)).toBe(true)
  })
})

describe("parseDaemonRef", () => {
  it("resolves a short name in the default namespace", () => {
    const r = right(parseDaemonRef("api", "shop"))
    expect(r).toBeInstanceOf(DaemonId)
    expect(r.namespace).toBe("shop")
    expect(r.name).toBe("api")
    expect(r.qualified).toBe("shop/api")
  })

  it("rejects a short name without a default namespace and suggests the qualified form", () => {
    expect(left(parseDaemonRef("api"))).toBe('"api" is a short name; use the qualified form <namespace>/api')
  })

  it("parses a qualified ID, ignoring the default namespace", () => {
    expect(right(parseDaemonRef("other/db", "shop")).qualified).toBe("other/db")
    expect(right(parseDaemonRef("other/db")).qualified).toBe("other/db")
  })

  it("rejects more than one slash", () => {
    expect(left(parseDaemonRef("a/b/c", "shop"))).toBe(
      '"a/b/c" has more than one slash; use <namespace>/<name>',
    )
    expect(left(parseDaemonRef("api/v2/x"))).toContain("more than one slash")
  })

  it("rejects an invalid short name, naming the rule", () => {
    expect(left(parseDaemonRef("my--app", "shop"))).toMatch(/^invalid daemon name "my--app": .*double dash/)
    expect(left(parseDaemonRef("my app", "shop"))).toContain("spaces")
    expect(left(parseDaemonRef("", "shop"))).toContain("must not be empty")
    expect(left(parseDaemonRef("café", "shop"))).toContain("ASCII")
  })

  it("rejects an invalid namespace part", () => {
    expect(left(parseDaemonRef("my--ns/api"))).toMatch(
      /^invalid namespace "my--ns" in "my--ns\/api": .*double dash/,
    )
    expect(left(parseDaemonRef("/api"))).toContain('invalid namespace "" in "/api": must not be empty')
    expect(left(parseDaemonRef("../api"))).toContain("parent reference")
  })

  it("rejects an invalid name part of a qualified ID", () => {
    expect(left(parseDaemonRef("shop/-api"))).toMatch(/^invalid daemon name "-api" in "shop\/-api": .*dash/)
    expect(left(parseDaemonRef("shop/"))).toContain("must not be empty")
    expect(left(parseDaemonRef("shop/a@b"))).toContain('"@"')
  })
})

describe("parseQualified", () => {
  it("parses a qualified ID", () => {
    expect(right(parseQualified("shop/api")).qualified).toBe("shop/api")
  })

  it("parses a safe_path <namespace>--<name>", () => {
    const r = right(parseQualified("shop--api"))
    expect(r.namespace).toBe("shop")
    expect(r.name).toBe("api")
  })

  it("keeps single dashes and dots on both sides of a safe_path", () => {
    const r = right(parseQualified("my-shop--api.v2"))
    expect([r.namespace, r.name]).toEqual(["my-shop", "api.v2"])
  })

  it("round-trips every safe_path and qualified ID", () => {
    for (const d of [id("shop", "api"), id("global", "a-b.c"), id("x_1", "y")]) {
      expect(right(parseQualified(d.safePath))).toEqual(d)
      expect(right(parseQualified(d.qualified))).toEqual(d)
    }
  })

  it("rejects a short name: there is no default namespace", () => {
    expect(left(parseQualified("api"))).toContain("is a short name")
  })

  it("rejects a safe_path whose name part still holds --", () => {
    expect(left(parseQualified("shop--my--app"))).toContain('invalid daemon name "my--app"')
  })

  it("rejects a safe_path with an empty part", () => {
    expect(left(parseQualified("--api"))).toContain("double dash")
    expect(left(parseQualified("shop--"))).toContain("must not be empty")
  })

  it("does not read -- as a separator when there is a slash", () => {
    expect(left(parseQualified("a--b/c"))).toContain('invalid namespace "a--b"')
  })
})

describe("DaemonRef schema", () => {
  const { ok, fail } = decoder(DaemonRef)

  it("accepts short and qualified IDs unchanged", () => {
    expect(ok("api")).toBe("api")
    expect(ok("shop/api")).toBe("shop/api")
    expect(ok("global/my-app.v2")).toBe("global/my-app.v2")
  })

  it("rejects malformed IDs with the parser's message", () => {
    expect(messages(fail("a/b/c"))).toContain("more than one slash")
    expect(messages(fail("my--app"))).toContain("double dash")
    expect(messages(fail("ns/my app"))).toContain("spaces")
    expect(messages(fail(""))).toContain("must not be empty")
    expect(messages(fail(3))).toContain("Expected string")
  })

  it("agrees with its JSON Schema pattern (except for '..')", () => {
    const json = JSONSchema.make(DaemonRef) as { $defs: Record<string, { pattern: string }> }
    const pattern = new RegExp(Object.values(json.$defs)[0]!.pattern)
    for (const s of [
      "api",
      "shop/api",
      "a/b/c",
      "my--app",
      "-x",
      "x-",
      "ns/",
      "/x",
      "a b",
      "café",
      "a/b-c",
    ]) {
      expect(pattern.test(s), s).toBe(Either.isRight(parseDaemonRef(s, "_")))
    }
  })
})
