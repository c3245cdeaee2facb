import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ByteSize, formatByteSize, parseByteSize } from "../../src/domain/ByteSize.js"
import { decoder, left, messages, right } from "./helpers.js"

const KiB = 1024
const MiB = 1024 ** 2
const GiB = 1024 ** 3

describe("parseByteSize", () => {
  it.each([
    ["50MB", 50_000_000],
    ["512MB", 512_000_000],
    ["1GiB", GiB],
    ["256KiB", 256 * KiB],
    ["2MiB", 2 * MiB],
    ["1TiB", 1024 ** 4],
    ["1KB", 1_000],
    ["1GB", 1_000_000_000],
    ["2TB", 2_000_000_000_000],
    ["2k", 2_000],
    ["3m", 3_000_000],
    ["1.5G", 1_500_000_000],
    ["1.5KiB", 1_536],
    ["100B", 100],
  ])("%s is %d bytes", (input, bytes) => {
    expect(right(parseByteSize(input))).toBe(bytes)
  })

  it("reads units case-insensitively", () => {
    expect(right(parseByteSize("50mb"))).toBe(50_000_000)
    expect(right(parseByteSize("1gib"))).toBe(GiB)
    expect(right(parseByteSize("256kib"))).toBe(256 * KiB)
    expect(right(parseByteSize("1GIB"))).toBe(GiB)
    expect(right(parseByteSize("1Gb"))).toBe(1_000_000_000)
  })

  it("allows spaces around and between number and unit", () => {
    expect(right(parseByteSize("512 MB"))).toBe(512_000_000)
    expect(right(parseByteSize(" 1 GiB "))).toBe(GiB)
  })

  it("reads a bare number as bytes", () => {
    expect(right(parseByteSize("4096"))).toBe(4_096)
    expect(right(parseByteSize("1"))).toBe(1)
  })

  it("rejects an unknown unit, listing the accepted ones", () => {
    const message = left(parseByteSize("5XB"))
    expect(message).toContain('unknown unit "XB" in byte size "5XB"')
    expect(message).toContain("KiB")
    expect(left(parseByteSize("1 PB"))).toContain('unknown unit "PB"')
    expect(left(parseByteSize("1GiBs"))).toContain('unknown unit "GiBs"')
  })

  it.each(["", "MB", "-5MB", "1,5MB", "5 M B", "five MB", "1e6"])("rejects %j as malformed", (input) => {
    expect(left(parseByteSize(input))).toContain("byte size")
  })

  it("rejects zero and sizes that round to zero bytes", () => {
    expect(left(parseByteSize("0"))).toBe('byte size "0" must be greater than zero')
    expect(left(parseByteSize("0MB"))).toContain("must be greater than zero")
    expect(left(parseByteSize("0.4B"))).toContain("must be greater than zero")
  })
})

describe("formatByteSize", () => {
  it.each([
    [1, "1B"],
    [999, "999B"],
    [1_000, "1KB"],
    [KiB, "1KiB"],
    [1_536, "1536B"],
    [256 * KiB, "256KiB"],
    [50_000_000, "50MB"],
    [512_000_000, "512MB"],
    [GiB, "1GiB"],
    [1_000_000_000_000, "1TB"],
    [1024 ** 4, "1TiB"],
    [2_048_000, "2000KiB"],
    [1_024_000, "1000KiB"],
  ])("formats %d bytes as %s", (bytes, text) => {
    expect(formatByteSize(bytes)).toBe(text)
  })

  it("round-trips through parseByteSize", () => {
    for (const bytes of [
      1,
      7,
      1_000,
      1_001,
      KiB,
      1_536,
      50_000_000,
      3 * MiB,
      5 * GiB,
      123_456_789,
      2_048_000,
    ]) {
      expect(right(parseByteSize(formatByteSize(bytes))), String(bytes)).toBe(bytes)
    }
  })
})

describe("ByteSize schema", () => {
  const { ok, fail } = decoder(ByteSize)

  it("decodes to a number of bytes", () => {
    expect(ok("512MB")).toBe(512_000_000)
    expect(ok("1GiB")).toBe(GiB)
  })

  it("encodes back to a byte size string", () => {
    const encode = Schema.encodeSync(ByteSize)
    expect(encode(512_000_000)).toBe("512MB")
    expect(encode(GiB)).toBe("1GiB")
    expect(encode(256 * KiB)).toBe("256KiB")
  })

  it("rejects numbers, zero and unknown units", () => {
    expect(messages(fail(512))).toContain('expected a byte size string such as "512MB", "1GiB" or "256KiB"')
    expect(messages(fail("0"))).toContain("must be greater than zero")
    expect(messages(fail("12 parsecs"))).toContain('unknown unit "parsecs"')
  })
})
