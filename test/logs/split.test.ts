import { describe, expect, it } from "@effect/vitest"
import { formatLogTimestamp } from "../../src/domain/LogEntry.js"
import { stripAnsi } from "../../src/logs/ansi.js"
import { makeMatcher } from "../../src/logs/reader.js"
import { countPieces, splitPieces } from "../../src/logs/split.js"

const pieces = (buf: Buffer, maxLine: number) => {
  const out: Array<string> = []
  splitPieces(buf, 0, buf.length, maxLine, true, (s, e) => out.push(buf.toString("latin1", s, e)))
  return out
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
const lcg = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}

describe("splitPieces", () => {
  it("splits on newlines, cuts long lines, and keeps or flushes the tail", () => {
    expect(pieces(Buffer.from("a\n\nbc\n"), 16)).toEqual(["a", "", "bc"])
    expect(pieces(Buffer.from(`${"x".repeat(40)}\ny`), 16)).toEqual([
      "x".repeat(16),
      "x".repeat(16),
      "x".repeat(8),
      "y",
    ])
    expect(countPieces(Buffer.from(`ab\n${"z".repeat(20)}`), 0, 23, 16, false)).toEqual({
      count: 2,
      rest: 19,
    })
  })

  it("never cuts inside a UTF-8 character", () => {
    const text = "€".repeat(30) // 3 bytes each: a cut at 16 would split one
    const buf = Buffer.from(`${text}\n`)
    const out: Array<string> = []
    splitPieces(buf, 0, buf.length, 16, true, (s, e) => out.push(buf.toString("utf8", s, e)))
    expect(out.join("")).toBe(text)
    expect(out.every((p) => !p.includes("\ufffd"))).toBe(true)
  })

  it("gives the pieces of the rules, for any range, piece size and finality (against a line-by-line reference)", () => {
    // The rules spelled out line by line with indexOf, as the first implementation did.
    const reference = (buf: Buffer, from: number, to: number, maxLine: number, final: boolean) => {
      const out: Array<[number, number]> = []
      const cut = (s: number) => {
        let c = maxLine
        while (c > maxLine - 3 && c > 1 && ((buf[s + c] ?? 0) & 0xc0) === 0x80) c--
        return ((buf[s + c] ?? 0) & 0xc0) === 0x80 ? maxLine : c
      }
      let s = from
      while (s < to) {
        const found = buf.indexOf(10, s)
        const nl = found === -1 || found >= to ? -1 : found
        const stop = nl === -1 ? to : nl
        while (stop - s > maxLine) {
          const c = cut(s)
          out.push([s, s + c])
          s += c
        }
        if (nl === -1) {
          if (final && s < to) {
            out.push([s, to])
            s = to
          }
          return { out, rest: s }
        }
        out.push([s, nl])
        s = nl + 1
      }
      return { out, rest: s }
    }
    const rnd = lcg(7)
    const alphabet = ["a", "\n", "é", "€", "𝄞", "bb", "\n\n"]
    for (let round = 0; round < 500; round++) {
      let text = ""
      const len = Math.floor(rnd() * 300)
      for (let i = 0; i < len; i++) text += alphabet[Math.floor(rnd() * alphabet.length)]
      const buf = Buffer.from(text)
      const from = Math.floor(rnd() * (buf.length + 1))
      const to = from + Math.floor(rnd() * (buf.length - from + 1))
      const maxLine = 4 + Math.floor(rnd() * 20)
      const final = rnd() < 0.5
      const got: Array<[number, number]> = []
      const rest = splitPieces(buf, from, to, maxLine, final, (a, b) => got.push([a, b]))
      const want = reference(buf, from, to, maxLine, final)
      expect({ got, rest }).toEqual({ got: want.out, rest: want.rest })
      expect(countPieces(buf, from, to, maxLine, final)).toEqual({ count: want.out.length, rest: want.rest })
    }
  })

  it("re-splitting each indexed record gives the pieces the follower counted", () => {
    const rnd = lcg(42)
    const alphabet = ["a", "b", "\n", "é", "€", "𝄞", "\n", "c"]
    for (let round = 0; round < 300; round++) {
      const maxLine = 16 + Math.floor(rnd() * 8)
      let text = ""
      const len = Math.floor(rnd() * 400)
      for (let i = 0; i < len; i++)
        text += rnd() < 0.05 ? "\n" : alphabet[Math.floor(rnd() * alphabet.length)]
      const all = Buffer.from(text)
      // the follower: arbitrary chunks, a carry, a record per chunk, sometimes a flush
      let carry = Buffer.alloc(0)
      let lineStart = 0
      const records: Array<{ off: number; end: number; n: number }> = []
      for (let pos = 0; pos < all.length; ) {
        const n = 1 + Math.floor(rnd() * 40)
        const data = Buffer.concat([carry, all.subarray(pos, pos + n)])
        pos = Math.min(all.length, pos + n)
        let { count, rest } = countPieces(data, 0, data.length, maxLine, false)
        if (rnd() < 0.1 && rest < data.length) {
          count += countPieces(data, rest, data.length, maxLine, true).count
          rest = data.length
        }
        if (count > 0) records.push({ off: lineStart, end: lineStart + rest, n: count })
        lineStart += rest
        carry = Buffer.from(data.subarray(rest))
      }
      if (carry.length > 0) {
        records.push({
          off: lineStart,
          end: lineStart + carry.length,
          n: countPieces(carry, 0, carry.length, maxLine, true).count,
        })
      }
      // the reader: each record on its own, final
      const fromRecords: Array<string> = []
      for (const r of records) {
        let k = 0
        splitPieces(all, r.off, r.end, maxLine, true, (s, e) => {
          fromRecords.push(all.toString("latin1", s, e))
          k++
        })
        expect(k).toBe(r.n)
      }
      // every byte except the newlines ends up in exactly one entry
      expect(fromRecords.join("").length).toBe(all.length - (text.match(/\n/g)?.length ?? 0))
    }
  })
})

describe("message helpers", () => {
  it("strips ANSI colour, cursor and OSC sequences", () => {
    expect(stripAnsi("\x1b[31mred\x1b[0m \x1b[1;32mgreen\x1b[m\x1b[2K \x1b]0;title\x07done")).toBe(
      "red green done",
    )
    expect(stripAnsi("plain")).toBe("plain")
  })

  it("matches grep case-insensitively by default, on the visible text", () => {
    const m = makeMatcher({ grep: "ERROR" })
    expect(m("an error here")).toBe("an error here")
    expect(m("\x1b[31mERR\x1b[0mOR")).toBe("\x1b[31mERR\x1b[0mOR")
    expect(m("fine")).toBeUndefined()
    expect(makeMatcher({ grep: "ERROR", caseSensitive: true })("an error")).toBeUndefined()
    const g = makeMatcher({ regex: /warn \d/g, raw: true })
    expect([g("warn 1"), g("warn 2"), g("\x1b[33mwarn 3\x1b[0m")]).toEqual(["warn 1", "warn 2", "warn 3"])
  })

  it("formats timestamps as local YYYY-MM-DD HH:MM:SS", () => {
    const d = new Date(2024, 0, 2, 3, 4, 5, 678)
    expect(formatLogTimestamp(d.getTime())).toBe("2024-01-02 03:04:05")
  })
})
