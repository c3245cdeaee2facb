import { describe, expect, it } from "vitest"
import { attachEndReport } from "../../src/terminal/attachEnd.js"

describe("attachEndReport", () => {
  it("says how a session ended and gives attach's exit status", () => {
    expect(attachEndReport("app/repl", { _tag: "Detached" })).toEqual({
      text: "detached from app/repl (still running)",
      failed: false,
      code: 0,
    })
    expect(attachEndReport("app/repl", { _tag: "Exited", code: 3, signal: null })).toEqual({
      text: "app/repl exited with code 3",
      failed: false,
      code: 3,
    })
    expect(attachEndReport("app/repl", { _tag: "Exited", code: null, signal: "SIGKILL" })).toEqual({
      text: "app/repl was killed by SIGKILL",
      failed: false,
      code: 137,
    })
    expect(attachEndReport("app/repl", { _tag: "Signalled", signal: "SIGHUP" })).toEqual({
      text: "detached from app/repl on SIGHUP (still running)",
      failed: false,
      code: 129,
    })
    expect(
      attachEndReport("app/repl", {
        _tag: "Refused",
        status: 409,
        message: "daemon app/repl is not running",
      }),
    ).toEqual({ text: "daemon app/repl is not running", failed: true, code: 1 })
  })
})
