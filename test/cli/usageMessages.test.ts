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

  it("names the argument's choices, the required option, the flag of a value that is no number", () => {
    expect(usageMessage("Missing argument <target> with choices systemd | compose", ["export"])).toBe(
      "error: missing argument <target>: one of systemd, compose (see `supervisor export --help`)",
    )
    expect(usageMessage("Expected to find option: '--out'", ["spec", "sdk"])).toBe(
      "error: missing option --out (see `supervisor spec sdk --help`)",
    )
    for (const args of [
      ["logs", "-n", "abc"],
      ["logs", "-nabc"],
    ])
      expect(usageMessage("'abc' is not a integer", ["logs"], args)).toBe(
        'error: -n "abc": not an integer (see `supervisor logs --help`)',
      )
    expect(usageMessage("'abc' is not a integer", ["logs"], ["logs", "--lines=abc"])).toBe(
      'error: --lines "abc": not an integer (see `supervisor logs --help`)',
    )
  })

  it("rewrites several errors at once, one line each, or none of them", () => {
    const two = "Expected to find option: '--lang'\n\nExpected to find option: '--out'\n"
    expect(usageMessage(two, ["spec", "sdk"])).toBe(
      "error: missing option --lang\nerror: missing option --out (see `supervisor spec sdk --help`)",
    )
    expect(
      usageMessage("Expected to find option: '--lang'\n\nsomething else", ["spec", "sdk"]),
    ).toBeUndefined()
  })

  it("leaves every other text alone", () => {
    expect(usageMessage("error: --group needs a value", ["start"])).toBeUndefined()
    expect(usageMessage("✗ app/web failed to start: exited with code 3", ["start"])).toBeUndefined()
    expect(usageMessage("Received unknown argument: 'x' and more\nlines after", ["x"])).toBeUndefined()
  })
})
