import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { inputText, keyText } from "../../src/domain/keys.js"

const ok = (e: Either.Either<string, string>) => Either.getOrThrowWith(e, (m) => new Error(m))

describe("tmux key names", () => {
  it("named keys type what an xterm sends", () => {
    expect(ok(keyText("Up", true))).toBe("\u001b[A")
    expect(ok(keyText("F5", true))).toBe("\u001b[15~")
    expect(ok(keyText("BSpace", true))).toBe("\u007f")
    expect(ok(keyText("Tab", false))).toBe("\t")
  })

  it("Enter is a carriage return on a terminal, a newline on a pipe", () => {
    expect(ok(keyText("Enter", true))).toBe("\r")
    expect(ok(keyText("Enter", false))).toBe("\n")
  })

  it("control and meta keys, in tmux's spellings", () => {
    expect(ok(keyText("C-c", true))).toBe("\u0003")
    expect(ok(keyText("C-C", true))).toBe("\u0003")
    expect(ok(keyText("^d", true))).toBe("\u0004")
    expect(ok(keyText("C-[", true))).toBe("\u001b")
    expect(ok(keyText("C-]", true))).toBe("\u001d")
    expect(ok(keyText("C-Space", true))).toBe("\u0000")
    expect(ok(keyText("C-?", true))).toBe("\u007f")
    expect(ok(keyText("M-x", true))).toBe("\u001bx")
    expect(ok(keyText("M-Enter", true))).toBe("\u001b\r")
    expect(ok(keyText("q", true))).toBe("q")
  })

  it("an unknown name says how keys are named", () => {
    for (const bad of ["Hyper-x", "C-", "C-ab", "Entr", ""]) {
      const e = keyText(bad, true)
      expect(Either.isLeft(e), bad).toBe(true)
      if (Either.isLeft(e)) expect(e.left).toContain("name a key as tmux does")
    }
  })

  it("input is the text, then the keys, then Enter", () => {
    expect(ok(inputText({ text: "ls", keys: ["Tab"], enter: true }, true))).toBe("ls\t\r")
    expect(ok(inputText({ text: "y", enter: true }, false))).toBe("y\n")
    expect(ok(inputText({}, true))).toBe("")
    expect(Either.isLeft(inputText({ text: "x", keys: ["Nope"] }, true))).toBe(true)
  })
})
