import { describe, expect, it } from "vitest"
import { fieldsText } from "../../../src/logs/structured/fieldsFile.js"
import { normaliseLevel, parseLine, parseLogfmt } from "../../../src/logs/structured/parse.js"

describe("parseLine", () => {
  it("text parses nothing", () => {
    expect(parseLine("text", '{"level":"info"}')).toBeUndefined()
  })

  it("json: an object line is its own fields JSON; its level is found and normalised", () => {
    const line = '  {"level":"WARNING","msg":"disk","pct":91}'
    expect(parseLine("json", line)).toEqual({
      level: "warn",
      fieldsJson: '{"level":"WARNING","msg":"disk","pct":91}',
    })
    expect(parseLine("json", '{"lvl":50,"msg":"x"}')?.level).toBe("error") // pino's numbers
    expect(parseLine("json", '{"severity":"critical"}')?.level).toBe("fatal")
    expect(parseLine("json", '{"msg":"no level"}')).toEqual({
      level: undefined,
      fieldsJson: '{"msg":"no level"}',
    })
    for (const notObject of ["[1,2]", "42", '"s"', "{broken", "plain text", ""])
      expect(parseLine("json", notObject)).toBeUndefined()
  })

  it("json: colour codes around the line are stripped first", () => {
    expect(parseLine("json", '\u001b[32m{"level":"info"}\u001b[0m')?.level).toBe("info")
  })

  it("logfmt: pairs, quoted values with escapes, bare keys as true", () => {
    expect(parseLogfmt('level=info msg="hello \\"you\\"" path=/a=b ok')).toEqual({
      fields: { level: "info", msg: 'hello "you"', path: "/a=b", ok: true },
      pairs: 3,
      bare: 1,
    })
    expect(parseLine("logfmt", 'time=1 level=error msg="it broke"')).toEqual({
      level: "error",
      fieldsJson: '{"time":"1","level":"error","msg":"it broke"}',
    })
    expect(parseLine("logfmt", "just words here")).toBeUndefined()
    expect(parseLine("logfmt", "started ok=1")?.fieldsJson).toBe('{"started":true,"ok":"1"}')
  })

  it("auto: JSON objects, then lines made of logfmt pairs alone; prose stays text", () => {
    expect(parseLine("auto", '{"level":"debug"}')?.level).toBe("debug")
    expect(parseLine("auto", "level=info msg=hi")?.level).toBe("info")
    expect(parseLine("auto", "listening on port=3000")).toBeUndefined()
    expect(parseLine("auto", "a plain line")).toBeUndefined()
  })

  it("levels: words in any case, numbers 10..60, anything else none", () => {
    expect(["TRACE", "dbg", "Info", "notice", "warn", "ERR", "panic"].map(normaliseLevel)).toEqual([
      "trace",
      "debug",
      "info",
      "info",
      "warn",
      "error",
      "fatal",
    ])
    expect([10, 20, 30, 40, 50, 60].map(normaliseLevel)).toEqual([
      "trace",
      "debug",
      "info",
      "warn",
      "error",
      "fatal",
    ])
    expect(normaliseLevel("loud")).toBeUndefined()
    expect(normaliseLevel(true)).toBeUndefined()
  })
})

describe("fieldsText", () => {
  const text = (format: "json" | "auto", lines: string) => {
    const buf = Buffer.from(lines)
    return fieldsText(format, buf, 0, buf.length, 64 * 1024)
  }

  it("a chunk of JSON lines parsed at once gives what a parse per line gives", () => {
    const lines = ['{"level":"info","n":1}', "42", '  {"lvl":"ERROR"} ', '"s"', "[1]", '{"msg":"x"}']
    const once = text("json", `${lines.join("\n")}\n`)
    expect(once).toEqual({
      // a line that is its JSON is not stored twice (`=`); one with spaces around it is stored trimmed
      text: 'info\t=\n\nerror\t{"lvl":"ERROR"}\n\n\n\t=\n',
      count: 6,
    })
    // the same lines with one that is no JSON: each line on its own, the same answer for the others
    const mixed = text("json", `${lines.join("\n")}\nnot json\n`)
    expect(mixed).toEqual({ text: `${once.text}\n`, count: 7 })
  })

  it("a line holding two values, CRLF endings, an unterminated last line: one fields line per entry", () => {
    expect(text("json", '1,2\n{"level":"warn"}\n').count).toBe(2)
    expect(text("json", '{"level":"warn"}\r\n{"level":"info"}\r\n')).toEqual({
      text: "warn\t=\ninfo\t=\n",
      count: 2,
    })
    expect(text("auto", '{"level":"debug"}\n{"level":"fatal"}')).toEqual({
      text: "debug\t=\nfatal\t=\n",
      count: 2,
    })
  })
})
