import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { completionScript } from "../../../src/usage/consume/index.js"
import type { Spec } from "../../../src/usage/model.js"
import { spec } from "./fixture.js"

const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-completion-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const has = (tool: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/**
 * Runs the generated bash function the way bash's completion does: COMP_WORDS/COMP_CWORD set
 * (the last word is the one being completed), then prints COMPREPLY one per line.
 */
const bashComplete = (words: ReadonlyArray<string>, options: { wordbreaks?: string; s?: Spec } = {}) => {
  const script = nodePath.join(dir, "demo.bash")
  fs.writeFileSync(script, completionScript(options.s ?? spec, "bash"))
  const setBreaks =
    options.wordbreaks === undefined ? "" : `COMP_WORDBREAKS=${JSON.stringify(options.wordbreaks)};`
  const out = execFileSync(
    "bash",
    [
      "-c",
      `${setBreaks} source "$0"; COMP_WORDS=("\${@}"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _demo; printf '%s\\n' "\${COMPREPLY[@]}"`,
      script,
      ...words,
    ],
    { encoding: "utf8" },
  )
  return out.split("\n").filter((l) => l !== "")
}

describe("bash completion (run in bash)", () => {
  it.runIf(has("bash"))("offers visible subcommands, not hidden ones or aliases", () => {
    expect(bashComplete(["demo", ""])).toEqual(["status", "daemons"])
    expect(bashComplete(["demo", "d"])).toEqual(["daemons"])
    expect(bashComplete(["demo", "daemons", ""])).toEqual(["list", "stop", "restart"])
  })

  it.runIf(has("bash"))("walks aliases and hidden commands typed in full", () => {
    expect(bashComplete(["demo", "d", "r"])).toEqual(["restart"])
    expect(bashComplete(["demo", "debug", ""])).toEqual(["dump"])
  })

  it.runIf(has("bash"))("offers flags of the command being typed, inherited globals included", () => {
    expect(bashComplete(["demo", "daemons", "stop", "--"])).toEqual(["--format", "--verbose", "--signal"])
    expect(bashComplete(["demo", "status", "--j"])).toEqual(["--json"])
    // A hidden flag is not offered.
    expect(bashComplete(["demo", "debug", "--t"])).toEqual([])
  })

  it.runIf(has("bash"))("offers the selector's output names of the command being typed", () => {
    expect(bashComplete(["demo", "status", "--format", ""])).toEqual(["text", "json", "jsonl"])
    expect(bashComplete(["demo", "daemons", "ls", "-f", ""])).toEqual(["text", "json", "xml"])
    expect(bashComplete(["demo", "--format", "j"])).toEqual(["json", "jsonl"])
  })

  it.runIf(has("bash"))("completes --format=VALUE whether or not '=' breaks words", () => {
    // Default COMP_WORDBREAKS contains '=': the line arrives as `--format`, `=`, `x`.
    expect(bashComplete(["demo", "daemons", "list", "--format", "=", "x"])).toEqual(["xml"])
    expect(bashComplete(["demo", "daemons", "list", "--format", "="])).toEqual(["text", "json", "xml"])
    expect(bashComplete(["demo", "status", "--format=js"], { wordbreaks: " \t\n" })).toEqual([
      "--format=json",
      "--format=jsonl",
    ])
  })

  it.runIf(has("bash"))("skips a flag's value while walking to the subcommand", () => {
    expect(bashComplete(["demo", "--format", "json", "daemons", "l"])).toEqual(["list"])
    expect(bashComplete(["demo", "--format", "=", "json", "st"])).toEqual(["status"])
    expect(bashComplete(["demo", "--config", "daemons", ""])).toEqual(["status", "daemons"])
  })

  it.runIf(has("bash"))("offers positional choices at their index, and other flags' choices", () => {
    expect(bashComplete(["demo", "daemons", "restart", "web", ""])).toEqual(["graceful", "hard"])
    expect(bashComplete(["demo", "daemons", "restart", ""])).toEqual([])
    expect(bashComplete(["demo", "daemons", "stop", "-s", ""])).toEqual(["TERM", "KILL"])
  })

  it.runIf(has("bash"))("offers no flags after --", () => {
    expect(bashComplete(["demo", "daemons", "stop", "--", "--"])).toEqual([])
  })

  it.runIf(has("bash"))("quotes words the shell would otherwise interpret", () => {
    const odd: Spec = {
      ...spec,
      root: {
        ...spec.root,
        subcommands: [{ ...spec.root.subcommands[0]!, name: "it's", aliases: [] }],
      },
    }
    expect(bashComplete(["demo", "it"], { s: odd })).toEqual(["it's"])
  })

  it("registers the function for the program", () => {
    const script = completionScript(spec, "bash")
    expect(script).toContain("complete -o default -F _demo demo")
    expect(() => execFileSync("bash", ["-n"], { input: script })).not.toThrow()
  })
})

// zsh and fish are not installed here: these check the generated text's structure.
describe("zsh completion (structure)", () => {
  const script = completionScript(spec, "zsh")

  it("is a #compdef file registering the function", () => {
    expect(script.startsWith("#compdef demo\n")).toBe(true)
    expect(script).toContain("compdef _demo demo")
  })

  it("offers output names with their help through _describe, per command", () => {
    expect(script).toContain("'(-f --format)--format=[Output format]:FMT:_demo_c0_f0'")
    expect(script).toContain(
      "_demo_c0_f0() {\n  local -a values=(\n    'text:Human-readable table'\n    'json:One JSON document'\n    'jsonl:One JSON event per line'\n  )\n  _describe -t values 'FMT' values\n}",
    )
    // daemons list (command 3) has its own outputs, help borrowed from the outputs.
    expect(script).toContain("'xml:An XML document'")
  })

  it("lists visible subcommands with help and dispatches aliases", () => {
    expect(script).toContain("'status:Show the status of every daemon'")
    expect(script).toContain("'status'|'st') _demo_c1 && ret=0 ;;")
    expect(script).not.toMatch(/'debug:/)
    expect(script).toContain("'debug') _demo_c6 && ret=0 ;;")
  })

  it("marks repeatable flags and keeps hidden flags out", () => {
    expect(script).toContain("'*--verbose[More output; repeat for more]'")
    expect(script).not.toContain("--trace")
  })

  it("describes positional arguments, with choices where declared", () => {
    expect(script).toContain("'*:Daemons to stop:_default'")
    expect(script).toContain("'::mode:_demo_c5_a1'")
  })

  it("escapes brackets in help and quotes in words", () => {
    const odd: Spec = {
      ...spec,
      root: {
        ...spec.root,
        flags: [{ ...spec.root.flags[2]!, help: "Path [default: it's ./x]" }],
        subcommands: [],
      },
    }
    const script = completionScript(odd, "zsh")
    expect(script).toContain("'--config=[Path \\[default: it'\\''s ./x\\]]:PATH:_default'")
    // The selector flag the spec no longer declares is still completed, from the outputs.
    expect(script).toContain("'--format=[Select the output format]:FORMAT:_demo_c0_f1'")
  })
})

describe("fish completion (structure)", () => {
  const script = completionScript(spec, "fish")

  it("offers output names with help as value<TAB>description", () => {
    expect(script).toContain(
      "complete -c 'demo' -n '__demo_is 3' -s 'f' -l 'format' -d 'Output format' -x -a 'text\\t\"Human-readable table\" json\\t\"One JSON document\" xml\\t\"An XML document\"'",
    )
  })

  it("offers subcommands with descriptions only at the first positional", () => {
    expect(script).toContain("complete -c 'demo' -n '__demo_is 2 0' -f -a 'list' -d 'List daemons'")
    expect(script).not.toContain("-a 'debug'")
  })

  it("walks names and aliases in the command-detection function", () => {
    expect(script).toContain(`if test "$id" = 0; and contains -- "$word" 'status' 'st'\n        echo 1`)
    expect(script).toContain(`if test "$id" = 4; and contains -- "$word" '-f' '--format' '-s' '--signal'`)
  })

  it("allows files only where a positional takes free text", () => {
    expect(script).toContain("complete -c 'demo' -n '__demo_is 1' -f\n")
    expect(script).not.toContain("complete -c 'demo' -n '__demo_is 4' -f\n")
    expect(script).toContain("complete -c 'demo' -n '__demo_is 5 1' -f -a 'graceful hard'")
  })

  it("escapes quotes in descriptions at both quoting levels", () => {
    const odd: Spec = {
      ...spec,
      root: {
        ...spec.root,
        flags: [
          {
            ...spec.root.flags[0]!,
            arg: { name: "FMT", required: true, choices: [{ value: "a", help: `it's "$x"` }] },
          },
        ],
        subcommands: [],
      },
    }
    // Outer single quotes: ' becomes \'; inner double quotes: " and $ are backslashed.
    expect(completionScript(odd, "fish")).toContain(`-a 'a\\t"it\\'s \\"\\$x\\""'`)
  })
})
