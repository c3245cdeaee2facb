import { describe, expect, it } from "vitest"
import {
  missingValueProblem,
  repeatedFlagProblem,
  subcommandProblem,
  subcommands,
  valueFlags,
  withAttachedValues,
} from "../../src/cli/argvChecks.js"
import { rootCommand } from "../../src/cli/commands.js"
import { withOptionalBumpValue } from "../../src/cli/portFlags.js"
import { cliSpecKdl } from "../../src/cli/usageSpec/cliSpec.js"

describe("valueFlags", () => {
  it("is every flag of the CLI with a required value, as its usage spec declares them", () => {
    const kdl = cliSpecKdl(rootCommand, { version: "0.0.0-test" })
    const declared = new Set<string>()
    for (const m of kdl.matchAll(/flag "([^"]+) <[A-Z_]+>"/g))
      for (const name of (m[1] as string).split(" ")) declared.add(name)
    expect([...valueFlags()].sort()).toEqual([...declared].sort())
    expect(valueFlags()).toContain("-n")
    expect(valueFlags()).not.toContain("--bump")
  })
})

describe("missingValueProblem", () => {
  it("names a value flag at the end, or followed by another long flag", () => {
    expect(missingValueProblem(["start", "--group"])).toBe("--group needs a value")
    expect(missingValueProblem(["logs", "-n"])).toBe("-n needs a value")
    // -g is --global, which takes no value
    expect(missingValueProblem(["start", "-g"])).toBeUndefined()
    expect(missingValueProblem(["start", "--group", "--delay", "1"])).toBe(
      "--group needs a value (it is followed by --delay)",
    )
    expect(missingValueProblem(["logs", "web", "--since"])).toBe("--since needs a value")
  })

  it("accepts values, flags without values, and anything after --", () => {
    expect(missingValueProblem(["start", "--group", "web", "--delay", "1", "-f"])).toBeUndefined()
    expect(missingValueProblem(["logs", "-n", "5", "--grep", "-x"])).toBeUndefined()
    expect(missingValueProblem(["run", "x", "--", "grep", "--since"])).toBeUndefined()
    expect(missingValueProblem(["start", "--all", "--bump"])).toBeUndefined()
  })

  it("names a missing or unknown shell of --completions, and leaves the known ones alone", () => {
    expect(missingValueProblem(["--completions"])).toBe("--completions needs a shell: bash, zsh, fish")
    expect(missingValueProblem(["--completions", "tcsh"])).toBe(
      '--completions: unknown shell "tcsh"; one of bash, zsh, fish',
    )
    expect(missingValueProblem(["--completions", "sh"])).toContain('unknown shell "sh"')
    for (const shell of ["bash", "zsh", "fish"])
      expect(missingValueProblem(["--completions", shell])).toBeUndefined()
  })
})

describe("subcommands", () => {
  it("is every command made of subcommands, with theirs, as the usage spec declares them", () => {
    const kdl = cliSpecKdl(rootCommand, { version: "0.0.0-test" })
    const declared: Record<string, Array<string>> = {}
    let parent: string | undefined
    for (const line of kdl.split("\n")) {
      const top = /^cmd "([^"]+)"/.exec(line)
      if (top) parent = top[1]
      const nested = /^ {2}cmd "([^"]+)"/.exec(line)
      if (nested && parent !== undefined)
        declared[parent] = [...(declared[parent] ?? []), nested[1] as string]
    }
    expect(subcommands()).toEqual(declared)
    expect(subcommands().config).toEqual(["show", "validate", "get"])
  })
})

describe("subcommandProblem", () => {
  it("names a missing or unknown subcommand with the choices", () => {
    expect(subcommandProblem(["config"])).toBe(
      "`supervisor config` needs a subcommand: show, validate, get (see `supervisor config --help`)",
    )
    expect(subcommandProblem(["spec", "chek", "x.kdl"])).toBe(
      "unknown subcommand `supervisor spec chek`; did you mean `check`? use one of check, resolve, docs, describe, sdk, fmt, complete (see `supervisor spec --help`)",
    )
  })

  it("leaves known subcommands, flags and other commands alone", () => {
    expect(subcommandProblem(["config", "show", "--json"])).toBeUndefined()
    expect(subcommandProblem(["config", "--help"])).toBeUndefined()
    expect(subcommandProblem(["start", "bogus"])).toBeUndefined()
    expect(subcommandProblem([])).toBeUndefined()
  })

  it("lets `settings` run alone (it prints every setting) but not with an unknown subcommand", () => {
    expect(subcommandProblem(["settings"])).toBeUndefined()
    expect(subcommandProblem(["settings", "lst"])).toBe(
      "unknown subcommand `supervisor settings lst`; did you mean `list`? use one of list, get, set (see `supervisor settings --help`)",
    )
  })

  it("lets `daemons` run alone (it lists), and still names an unknown subcommand of it", () => {
    expect(subcommandProblem(["daemons"])).toBeUndefined()
    expect(subcommandProblem(["daemons", "--json"])).toBeUndefined()
    expect(subcommandProblem(["daemons", "ad"])).toContain("did you mean `add`?")
  })
})

describe("withOptionalBumpValue", () => {
  it("gives a bare --bump of `start` and `daemons add` the empty value (settings.supervisor.port_bump_attempts)", () => {
    expect(withOptionalBumpValue(["n", "sv", "daemons", "add", "web", "--bump", "--run", "x"])).toEqual([
      "n",
      "sv",
      "daemons",
      "add",
      "web",
      "--bump",
      "",
      "--run",
      "x",
    ])
    expect(withOptionalBumpValue(["n", "sv", "daemons", "add", "web", "--bump", "3"])).toEqual([
      "n",
      "sv",
      "daemons",
      "add",
      "web",
      "--bump",
      "3",
    ])
    expect(withOptionalBumpValue(["n", "sv", "start", "web", "--bump"])).toEqual([
      "n",
      "sv",
      "start",
      "web",
      "--bump",
      "",
    ])
    expect(withOptionalBumpValue(["n", "sv", "daemons", "remove", "--bump"])).toEqual([
      "n",
      "sv",
      "daemons",
      "remove",
      "--bump",
    ])
  })
})

describe("withAttachedValues", () => {
  it("splits -n5, and leaves the rest (a boolean's -gweb too) and anything after -- alone", () => {
    expect(withAttachedValues(["node", "sv", "logs", "web", "-n5"])).toEqual([
      "node",
      "sv",
      "logs",
      "web",
      "-n",
      "5",
    ])
    expect(withAttachedValues(["node", "sv", "start", "-gweb", "-f"])).toEqual([
      "node",
      "sv",
      "start",
      "-gweb",
      "-f",
    ])
    expect(withAttachedValues(["node", "sv", "run", "x", "--", "head", "-n5"])).toEqual([
      "node",
      "sv",
      "run",
      "x",
      "--",
      "head",
      "-n5",
    ])
    expect(withAttachedValues(["node", "sv", "list", "--namespace", "-n"])).toEqual([
      "node",
      "sv",
      "list",
      "--namespace",
      "-n",
    ])
  })
})

describe("repeatedFlagProblem", () => {
  it("names a flag given twice that its command takes once, in any of its spellings", () => {
    expect(repeatedFlagProblem(["logs", "-n", "5", "-n", "6", "web"])).toBe(
      "option --lines/-n is given more than once",
    )
    expect(repeatedFlagProblem(["logs", "--lines=5", "-n6"])).toBe(
      "option --lines/-n is given more than once",
    )
    expect(repeatedFlagProblem(["config", "show", "--json", "--json"])).toBe(
      "option --json is given more than once",
    )
  })

  it("lets repeatable flags, values that look like flags and a command's own words through", () => {
    expect(repeatedFlagProblem(["logs", "--grep", "a", "--grep", "b", "-n", "3"])).toBeUndefined()
    // the first --json is the namespace's value (missingValueProblem names that one)
    expect(repeatedFlagProblem(["list", "--namespace", "--json", "--json"])).toBeUndefined()
    expect(repeatedFlagProblem(["run", "x", "--", "head", "-n", "1", "-n", "2"])).toBeUndefined()
    expect(repeatedFlagProblem(["status", "web"])).toBeUndefined()
    expect(repeatedFlagProblem([])).toBeUndefined()
  })
})
