import { describe, expect, it } from "vitest"
import { usageMessage } from "../../src/cli/usageMessages.js"

describe("usageMessage", () => {
  it("rewords @effect/cli's parse errors with the error: prefix and a help hint", () => {
    expect(usageMessage("Received unknown argument: '--bogus'\n\n", ["list"])).toBe(
      "error: unknown option --bogus (see `supervisor list --help`)",
    )
    expect(usageMessage("Received unknown argument: 'b'", ["status"])).toBe(
      'error: unexpected argument "b" (see `supervisor status --help`)',
    )
    expect(usageMessage("Missing argument <id>\n", ["wait"])).toBe(
      "error: missing argument <id> (see `supervisor wait --help`)",
    )
    expect(usageMessage("'abc' is not a integer", ["logs"])).toBe(
      'error: "abc" is not an integer (see `supervisor logs --help`)',
    )
    expect(usageMessage("'x' is not a float", ["start"])).toBe(
      'error: "x" is not a float (see `supervisor start --help`)',
    )
    expect(usageMessage("Missing argument <id>", [])).toBe(
      "error: missing argument <id> (see `supervisor --help`)",
    )
  })

  it("names the flag whose value is not one of its choices", () => {
    const cases = "Expected one of the following cases: trace, debug, info"
    expect(usageMessage(cases, ["logs"], ["logs", "web", "--level", "bogus"])).toBe(
      "error: invalid level 'bogus' for --level; expected one of: trace, debug, info (see `supervisor logs --help`)",
    )
    expect(usageMessage(cases, ["logs"], ["logs", "-n", "5", "--level=loud"])).toBe(
      "error: invalid level 'loud' for --level; expected one of: trace, debug, info (see `supervisor logs --help`)",
    )
  })

  it("leaves every other text alone", () => {
    expect(usageMessage("error: --group needs a value", ["start"])).toBeUndefined()
    expect(usageMessage("✗ app/web failed to start: exited with code 3", ["start"])).toBeUndefined()
    expect(usageMessage("Received unknown argument: 'x' and more\nlines after", ["x"])).toBeUndefined()
  })
})
