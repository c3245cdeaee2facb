// biome-ignore-all lint/suspicious/noTemplateCurlyInString: dotenv text, where ${VAR} is the syntax under test

import { describe, expect, it } from "vitest"
import { parseDotenv } from "../../src/config/dotenv.js"

const values = (text: string, below: Record<string, string> = {}) => {
  const r = parseDotenv(text, (name) => below[name])
  if (!r.ok) throw new Error(`line ${r.error.line}: ${r.error.message}`)
  return r.values
}
const error = (text: string) => {
  const r = parseDotenv(text)
  if (r.ok) throw new Error(`parsed: ${JSON.stringify(r.values)}`)
  return r.error
}

describe("dotenv parser", () => {
  it("skips blank lines and comments", () => {
    expect(values("\n# a comment\n   # indented\n\nA=1\n")).toEqual({ A: "1" })
  })

  it("reads an `export` prefix, blanks around `=` and CRLF line ends", () => {
    expect(values("export A=1\r\nexport   B = two\r\nexport=3\n")).toEqual({ A: "1", B: "two", export: "3" })
  })

  it("keeps single-quoted values literally", () => {
    expect(values("A='x\\ny ${HOME} \"q\" # not a comment'", { HOME: "/h" })).toEqual({
      A: 'x\\ny ${HOME} "q" # not a comment',
    })
  })

  it("turns escapes of double-quoted values into their characters", () => {
    expect(values(String.raw`A="a\nb\tc\"d\\e\$f\q"`)).toEqual({ A: 'a\nb\tc"d\\e$f\\q' })
  })

  it("expands ${VAR} in double-quoted values, but not an escaped \\$", () => {
    expect(values('A="x-${B}-\\${B}" # trailing comment', { B: "b" })).toEqual({ A: "x-b-${B}" })
  })

  it("reads quoted values over several lines", () => {
    expect(values("KEY=\"line 1\nline 2\"\nSINGLE='a\nb'\nNEXT=1")).toEqual({
      KEY: "line 1\nline 2",
      SINGLE: "a\nb",
      NEXT: "1",
    })
  })

  it("trims unquoted values and strips a comment after a blank", () => {
    expect(values("A=  spaced value   # comment\nB=a#b\nC=\nD=#x")).toEqual({
      A: "spaced value",
      B: "a#b",
      C: "",
      D: "#x",
    })
  })

  it("expands from earlier keys of the file first, then the environment below", () => {
    expect(values("HOST=localhost\nURL=http://${HOST}:${PORT}/\nPORT=1", { PORT: "80", HOST: "x" })).toEqual({
      HOST: "localhost",
      URL: "http://localhost:80/",
      PORT: "1",
    })
  })

  it("uses ${VAR:-default} when unset or empty, ${VAR-default} only when unset", () => {
    expect(
      values("E=\nA=${UNSET:-d1}\nB=${E:-d2}\nC=${E-d3}\nD=${UNSET-d4}\nF=${SET:-no}\nG=${UNSET:-${SET}x}", {
        SET: "s",
      }),
    ).toEqual({ E: "", A: "d1", B: "d2", C: "", D: "d4", F: "s", G: "sx" })
  })

  it("expands an unknown variable to nothing and keeps a lone $", () => {
    expect(values('A=${NOPE}x\nB=$HOME and 5$\nC="$ {x}"', { HOME: "/h" })).toEqual({
      A: "x",
      B: "$HOME and 5$",
      C: "$ {x}",
    })
  })

  it("lets a later line replace an earlier key", () => {
    expect(values("A=1\nA=2")).toEqual({ A: "2" })
  })

  it("names the line of a line without =", () => {
    expect(error("A=1\n\nJUST_A_NAME\n")).toEqual({
      line: 3,
      message: 'expected "=" after JUST_A_NAME: write JUST_A_NAME=value',
    })
  })

  it("names the line of an invalid name", () => {
    expect(error("1A=x").line).toBe(1)
    expect(error("A=1\nMY-KEY=x").line).toBe(2)
    expect(error("A=1\n=x").message).toMatch(/expected NAME=value/)
  })

  it("names the line where an unclosed quote opens", () => {
    expect(error('A=1\nB="never closed\nC=3')).toEqual({
      line: 2,
      message: "the double quote is never closed",
    })
    expect(error("A='x").message).toBe("the single quote is never closed")
  })

  it("refuses text after a closing quote, naming its line", () => {
    expect(error('A="x"y')).toEqual({
      line: 1,
      message: "unexpected text after the closing quote: quote the whole value, or start a comment with #",
    })
    expect(error('A="x\ny" z').line).toBe(2)
  })

  it("refuses a broken expansion, naming its line", () => {
    expect(error("A=1\nB=${OPEN")).toEqual({ line: 2, message: '"${" without a closing "}"' })
    expect(error("B=${1X}").message).toMatch(/names no variable/)
    expect(error("B=${X:?err}").message).toMatch(/is not an expansion/)
  })
})
