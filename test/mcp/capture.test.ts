import { Console, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { capture } from "../../src/mcp/capture.js"

describe("capture", () => {
  it("collects the Console and process.stdout writes, reads the exit status and restores both", async () => {
    const write = process.stdout.write
    const before = process.exitCode
    const c = await Effect.runPromise(
      capture(
        Effect.gen(function* () {
          yield* Console.log("from", "console")
          yield* Effect.sync(() => process.stdout.write("direct\n"))
          yield* Console.error("\u001b[31merror:\u001b[39m bad")
          yield* Effect.sync(() => {
            process.exitCode = 124
          })
        }),
      ),
    )
    expect(c).toEqual({ stdout: "from console\ndirect\n", stderr: "error: bad\n", exitCode: 124 })
    expect(process.stdout.write).toBe(write)
    expect(process.exitCode).toBe(before)
  })

  it("turns a defect into exit status 1 with its message", async () => {
    const c = await Effect.runPromise(capture(Effect.die(new Error("boom"))))
    expect(c.exitCode).toBe(1)
    expect(c.stderr).toMatch(/^error: .*boom/)
  })
})
