import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_DETACH_KEY, detachKeyText, parseDetachKey } from "../../src/domain/detachKey.js"

describe("parseDetachKey", () => {
  it("reads control keys as tmux names them, in any case and with ^ or Ctrl-", () => {
    expect(parseDetachKey(DEFAULT_DETACH_KEY)).toEqual(Either.right(0x1d))
    expect(parseDetachKey("C-a")).toEqual(Either.right(0x01))
    expect(parseDetachKey("C-Q")).toEqual(Either.right(0x11))
    expect(parseDetachKey("^]")).toEqual(Either.right(0x1d))
    expect(parseDetachKey("ctrl-\\")).toEqual(Either.right(0x1c))
    expect(parseDetachKey("C-@")).toEqual(Either.right(0x00))
  })

  it("refuses what is no control key, and the control keys that are Enter, Tab or Escape", () => {
    expect(parseDetachKey("a")).toEqual(
      Either.left(
        '--detach-key "a" is not a control key: name one as C-x with x a letter or one of @ [ \\ ] ^ _ (e.g. C-a, C-q, C-])',
      ),
    )
    expect(Either.isLeft(parseDetachKey("C-1"))).toBe(true)
    expect(Either.isLeft(parseDetachKey("C-ab"))).toBe(true)
    expect(parseDetachKey("C-m")).toEqual(
      Either.left(
        "--detach-key C-m is the Enter key too: choose another, such as C-] (the default), C-a or C-q",
      ),
    )
    expect(Either.isLeft(parseDetachKey("C-i"))).toBe(true)
    expect(Either.isLeft(parseDetachKey("C-["))).toBe(true)
  })

  it("names a key's byte as Ctrl-x", () => {
    expect(detachKeyText(0x1d)).toBe("Ctrl-]")
    expect(detachKeyText(0x01)).toBe("Ctrl-A")
  })
})
