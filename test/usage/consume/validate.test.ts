import { describe, expect, it } from "vitest"
import { validateArgv } from "../../../src/usage/consume/index.js"
import type { Spec } from "../../../src/usage/model.js"
import { spec } from "./fixture.js"

const ok = (argv: ReadonlyArray<string>, s: Spec = spec) => {
  const result = validateArgv(s, argv)
  if (!result.ok) throw new Error(`expected ok, got: ${result.errors.join("; ")}`)
  return result
}
const errors = (argv: ReadonlyArray<string>, s: Spec = spec): ReadonlyArray<string> => {
  const result = validateArgv(s, argv)
  if (result.ok) throw new Error(`expected errors for ${argv.join(" ")}`)
  return result.errors
}

describe("validateArgv: commands", () => {
  it("finds nested commands by name and alias, reporting the canonical path", () => {
    expect(ok(["daemons", "list"]).command).toEqual(["daemons", "list"])
    expect(ok(["d", "ls"]).command).toEqual(["daemons", "list"])
    expect(ok(["st"]).command).toEqual(["status"])
    expect(ok([]).command).toEqual([])
  })

  it("accepts a hidden command (hidden means unlisted, not forbidden)", () => {
    expect(ok(["debug", "dump"]).command).toEqual(["debug", "dump"])
  })

  it("rejects an unknown subcommand, listing the visible ones", () => {
    expect(errors(["daemons", "frobnicate"])).toEqual([
      'unknown command "frobnicate" for "demo daemons" (known: list, stop, restart)',
    ])
    expect(errors(["nope"])[0]).toContain("(known: status, daemons)")
  })

  it("treats words after -- as positionals, not subcommands or flags", () => {
    expect(ok(["daemons", "stop", "--", "--format"]).command).toEqual(["daemons", "stop"])
    expect(errors(["--", "status"])[0]).toContain('unknown command "status"')
  })
})

describe("validateArgv: flags", () => {
  it("rejects an unknown flag, naming the command", () => {
    expect(errors(["status", "--bogus"])).toEqual(['unknown flag --bogus for "demo status"'])
    expect(errors(["status", "-x"])).toEqual(['unknown flag -x for "demo status"'])
  })

  it("rejects a flag of another command (--config is root-only, not global)", () => {
    expect(errors(["status", "--config", "x"])[0]).toBe('unknown flag --config for "demo status"')
    expect(ok(["--config", "x", "status"]).command).toEqual(["status"])
  })

  it("rejects --format yaml with the output names as the allowed values", () => {
    expect(errors(["status", "--format", "yaml"])).toEqual([
      '--format: "yaml" is not one of: text, json, jsonl',
    ])
    expect(errors(["status", "--format=yaml"])).toEqual(['--format: "yaml" is not one of: text, json, jsonl'])
    expect(errors(["status", "-fyaml"])).toEqual(['-f: "yaml" is not one of: text, json, jsonl'])
  })

  it("checks a shared global selector against the final command's own outputs", () => {
    expect(ok(["daemons", "list", "--format", "xml"]).output).toBe("xml")
    expect(errors(["status", "--format", "xml"])).toEqual([
      '--format: "xml" is not one of: text, json, jsonl',
    ])
    // Typed before the subcommand: still the subcommand's choices.
    expect(ok(["--format", "xml", "daemons", "list"]).output).toBe("xml")
    expect(errors(["--format", "jsonl", "daemons", "list"])).toEqual([
      '--format: "jsonl" is not one of: text, json, xml',
    ])
  })

  it("rejects a value given to a present selector flag", () => {
    expect(errors(["status", "--json=yaml"])).toEqual([
      '--json: takes no value (it selects the "json" output)',
    ])
    expect(errors(["status", "--json", "yaml"])).toEqual([
      'unexpected argument "yaml" (--json takes no value)',
    ])
  })

  it("requires a value for a value flag, and checks declared choices", () => {
    expect(errors(["status", "--format"])).toEqual(["--format: a value is required"])
    expect(errors(["daemons", "stop", "web", "-s", "HUP"])).toEqual(['-s: "HUP" is not one of: TERM, KILL'])
    expect(ok(["daemons", "stop", "web", "--signal=KILL"]).command).toEqual(["daemons", "stop"])
  })

  it("allows repeating a variadic flag only", () => {
    expect(ok(["-vv", "status", "--verbose"]).command).toEqual(["status"])
    expect(errors(["status", "--format", "json", "-f", "text"])).toContain("--format: given more than once")
  })

  it("accepts --help and --version though undeclared, and help skips required arguments", () => {
    expect(ok(["daemons", "stop", "--help"]).command).toEqual(["daemons", "stop"])
    expect(ok(["--version"]).command).toEqual([])
    expect(errors(["status", "--version"])[0]).toBe('unknown flag --version for "demo status"')
  })
})

describe("validateArgv: arguments", () => {
  it("reports missing required arguments", () => {
    expect(errors(["daemons", "stop"])).toEqual(["missing required argument <name>"])
    expect(errors(["daemons", "restart"])).toEqual(["missing required argument <name>"])
  })

  it("accepts a variadic argument and rejects extra positionals", () => {
    expect(ok(["daemons", "stop", "a", "b", "c"]).command).toEqual(["daemons", "stop"])
    expect(errors(["daemons", "restart", "web", "hard", "extra"])).toEqual(['unexpected argument "extra"'])
  })

  it("checks positional choices", () => {
    expect(errors(["daemons", "restart", "web", "soft"])).toEqual([
      '<mode>: "soft" is not one of: graceful, hard',
    ])
    expect(ok(["daemons", "restart", "web", "graceful"]).command).toEqual(["daemons", "restart"])
  })
})

describe("validateArgv: selected output", () => {
  it("is the default output when nothing selects one", () => {
    expect(ok(["status"]).output).toBe("text")
  })

  it("follows a value selector, or a present selector", () => {
    expect(ok(["daemons", "stop", "web", "--format", "jsonl"]).output).toBe("jsonl")
    expect(ok(["status", "--json"]).output).toBe("json")
    // json's selector is --json here, but --format json still names the json output.
    expect(ok(["status", "--format", "json"]).output).toBe("json")
    expect(ok(["status", "--json", "--format", "json"]).output).toBe("json")
  })

  it("rejects selections that disagree", () => {
    expect(errors(["status", "--json", "--format", "text"])).toEqual([
      "conflicting output selections: --json, --format text",
    ])
  })

  it("is absent for a command without outputs", () => {
    const bare: Spec = { ...spec, root: { ...spec.root, outputs: [], subcommands: [] } }
    const result = ok([], bare)
    expect(result).toEqual({ ok: true, command: [] })
    expect("output" in result).toBe(false)
  })

  it("treats a selector flag the spec did not declare as known", () => {
    const status = spec.root.subcommands[0]!
    const undeclared: Spec = {
      ...spec,
      root: {
        ...spec.root,
        subcommands: [{ ...status, flags: status.flags.filter((f) => f.long[0] !== "json") }],
      },
    }
    expect(ok(["status", "--json"], undeclared).output).toBe("json")
  })
})
