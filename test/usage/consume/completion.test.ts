import { execFileSync } from "node:child_process"
import { beforeAll, describe, expect, it } from "vitest"
import { completionScript } from "../../../src/usage/consume/index.js"
import type { Spec } from "../../../src/usage/model.js"
import { spec } from "./fixture.js"
import { bashCompleteWith, fishCompleteWith, zshCompleteWith, zshDump } from "./shells.js"

const bashComplete = (words: ReadonlyArray<string>, options: { wordbreaks?: string; s?: Spec } = {}) =>
  bashCompleteWith(
    completionScript(options.s ?? spec, "bash"),
    words,
    options.wordbreaks === undefined ? {} : { wordbreaks: options.wordbreaks },
  )
const fishComplete = (line: string) => fishCompleteWith(completionScript(spec, "fish"), line)
const zshComplete = (line: string, options: { autoload?: boolean } = {}) =>
  zshCompleteWith(completionScript(spec, "zsh"), line, options)

describe("bash completion (run in bash)", () => {
  it("offers visible subcommands, not hidden ones or aliases", () => {
    expect(bashComplete(["demo", ""])).toEqual(["status", "daemons"])
    expect(bashComplete(["demo", "d"])).toEqual(["daemons"])
    expect(bashComplete(["demo", "daemons", ""])).toEqual(["list", "stop", "restart"])
  })

  it("walks aliases and hidden commands typed in full", () => {
    expect(bashComplete(["demo", "d", "r"])).toEqual(["restart"])
    expect(bashComplete(["demo", "debug", ""])).toEqual(["dump"])
  })

  it("offers flags of the command being typed, inherited globals included", () => {
    expect(bashComplete(["demo", "daemons", "stop", "--"])).toEqual(["--format", "--verbose", "--signal"])
    expect(bashComplete(["demo", "status", "--j"])).toEqual(["--json"])
    // A hidden flag is not offered.
    expect(bashComplete(["demo", "debug", "--t"])).toEqual([])
  })

  it("offers the selector's output names of the command being typed", () => {
    expect(bashComplete(["demo", "status", "--format", ""])).toEqual(["text", "json", "jsonl"])
    expect(bashComplete(["demo", "daemons", "ls", "-f", ""])).toEqual(["text", "json", "xml"])
    expect(bashComplete(["demo", "--format", "j"])).toEqual(["json", "jsonl"])
  })

  it("completes --format=VALUE whether or not '=' breaks words", () => {
    // Default COMP_WORDBREAKS contains '=': the line arrives as `--format`, `=`, `x`.
    expect(bashComplete(["demo", "daemons", "list", "--format", "=", "x"])).toEqual(["xml"])
    expect(bashComplete(["demo", "daemons", "list", "--format", "="])).toEqual(["text", "json", "xml"])
    expect(bashComplete(["demo", "status", "--format=js"], { wordbreaks: " \t\n" })).toEqual([
      "--format=json",
      "--format=jsonl",
    ])
  })

  it("skips a flag's value while walking to the subcommand", () => {
    expect(bashComplete(["demo", "--format", "json", "daemons", "l"])).toEqual(["list"])
    expect(bashComplete(["demo", "--format", "=", "json", "st"])).toEqual(["status"])
    expect(bashComplete(["demo", "--config", "daemons", ""])).toEqual(["status", "daemons"])
  })

  it("offers positional choices at their index, and other flags' choices", () => {
    expect(bashComplete(["demo", "daemons", "restart", "web", ""])).toEqual(["graceful", "hard"])
    expect(bashComplete(["demo", "daemons", "restart", ""])).toEqual([])
    expect(bashComplete(["demo", "daemons", "stop", "-s", ""])).toEqual(["TERM", "KILL"])
  })

  it("offers no flags after --", () => {
    expect(bashComplete(["demo", "daemons", "stop", "--", "--"])).toEqual([])
  })

  it("quotes words the shell would otherwise interpret", () => {
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

const formatHelp = {
  text: "text\tHuman-readable table",
  json: "json\tOne JSON document",
  jsonl: "jsonl\tOne JSON event per line",
  xml: "xml\tAn XML document",
}

/** The flags (with help) zsh and fish offer after `--` for three commands of the fixture. */
const flagHelp = {
  status: [
    "--format\tOutput format",
    "--json\tShorthand for --format json",
    "--verbose\tMore output; repeat for more",
  ],
  stop: ["--format\tOutput format", "--signal\tSignal to send", "--verbose\tMore output; repeat for more"],
  debug: ["--format\tOutput format", "--verbose\tMore output; repeat for more"],
}

describe("zsh completion (run in zsh)", () => {
  beforeAll(zshDump, 120_000)
  it("offers visible subcommands with help, walks aliases, leaves hidden commands out", async () => {
    const [top, s, nested, alias, hidden, flagFirst] = await Promise.all([
      zshComplete("demo "),
      zshComplete("demo s"),
      zshComplete("demo -v daemons "),
      zshComplete("demo d r"),
      zshComplete("demo debug "),
      zshComplete("demo daemons -v "),
    ])
    expect(top).toEqual(["daemons\tManage daemons", "status\tShow the status of every daemon"])
    expect(s).toEqual(["status\tShow the status of every daemon"])
    expect(nested).toEqual(["list\tList daemons", "restart\tRestart one daemon", "stop\tStop daemons"])
    expect(alias).toEqual(["restart\tRestart one daemon"])
    // A hidden command typed in full is still completed.
    expect(hidden).toEqual(["dump\tDump internal state"])
    // A flag between a command and its subcommand.
    expect(flagFirst).toEqual(nested)
  })

  it("offers the flags of the command being typed, with help, hidden flags left out", async () => {
    const [status, stop, debug] = await Promise.all([
      zshComplete("demo status --"),
      zshComplete("demo daemons stop web --"),
      zshComplete("demo debug --"),
    ])
    expect(status).toEqual(flagHelp.status)
    expect(stop).toEqual(flagHelp.stop)
    expect(debug).toEqual(flagHelp.debug)
  })

  it("offers the --format choices of the command being typed, with their help", async () => {
    const [status, list, listShort, afterGlobal, prefix] = await Promise.all([
      zshComplete("demo status --format "),
      zshComplete("demo daemons list --format "),
      zshComplete("demo d ls -f "),
      // The root's own --format before the subcommand does not capture the later one.
      zshComplete("demo --format json daemons list --format="),
      zshComplete("demo st --format j"),
    ])
    expect(status).toEqual([formatHelp.json, formatHelp.jsonl, formatHelp.text])
    expect(list).toEqual([formatHelp.json, formatHelp.text, formatHelp.xml])
    expect(listShort).toEqual(list)
    expect(afterGlobal).toEqual(list)
    expect(prefix).toEqual([formatHelp.json, formatHelp.jsonl])
  })

  it("offers positional choices at their index, and other flags' choices", async () => {
    const [mode, name, signal] = await Promise.all([
      zshComplete("demo daemons restart web "),
      zshComplete("demo daemons restart "),
      zshComplete("demo daemons stop web -s "),
    ])
    expect(mode).toEqual(["graceful", "hard"])
    // A free-text name: files (none here), no choices.
    expect(name).toEqual([])
    expect(signal).toEqual(["KILL", "TERM\tPolite"])
  })

  it("works the same autoloaded from $fpath as a #compdef file", async () => {
    const [top, list] = await Promise.all([
      zshComplete("demo ", { autoload: true }),
      zshComplete("demo daemons list --format ", { autoload: true }),
    ])
    expect(top).toEqual(["daemons\tManage daemons", "status\tShow the status of every daemon"])
    expect(list).toEqual([formatHelp.json, formatHelp.text, formatHelp.xml])
    // no dump here: compinit reads every function on $fpath, seconds of CPU on a busy machine
  }, 60_000)
})

describe("fish completion (run in fish)", () => {
  it("offers visible subcommands with help, walks aliases, leaves hidden commands out", async () => {
    const [top, s, nested, alias, hidden] = await Promise.all([
      fishComplete("demo "),
      fishComplete("demo s"),
      fishComplete("demo -v daemons "),
      fishComplete("demo d r"),
      fishComplete("demo debug "),
    ])
    expect(top).toEqual(["daemons\tManage daemons", "status\tShow the status of every daemon"])
    expect(s).toEqual(["status\tShow the status of every daemon"])
    expect(nested).toEqual(["list\tList daemons", "restart\tRestart one daemon", "stop\tStop daemons"])
    expect(alias).toEqual(["restart\tRestart one daemon"])
    expect(hidden).toEqual(["dump\tDump internal state"])
  })

  it("offers the flags of the command being typed, with help, hidden flags left out", async () => {
    const [status, stop, debug] = await Promise.all([
      fishComplete("demo status --"),
      fishComplete("demo daemons stop web --"),
      fishComplete("demo debug --"),
    ])
    expect(status).toEqual(flagHelp.status)
    expect(stop).toEqual(flagHelp.stop)
    expect(debug).toEqual(flagHelp.debug)
  })

  it("offers the --format choices of the command being typed, with their help", async () => {
    const [status, list, listShort, afterGlobal, prefix] = await Promise.all([
      fishComplete("demo status --format "),
      fishComplete("demo daemons list --format "),
      fishComplete("demo d ls -f "),
      fishComplete("demo --format json daemons list --format "),
      fishComplete("demo st --format j"),
    ])
    expect(status).toEqual([formatHelp.json, formatHelp.jsonl, formatHelp.text])
    expect(list).toEqual([formatHelp.json, formatHelp.text, formatHelp.xml])
    expect(listShort).toEqual(list)
    expect(afterGlobal).toEqual(list)
    expect(prefix).toEqual([formatHelp.json, formatHelp.jsonl])
    // fish's own --format=VALUE form.
    expect(await fishComplete("demo daemons list --format=x")).toEqual([`--format=${formatHelp.xml}`])
  })

  it("offers positional choices at their index, and other flags' choices", async () => {
    const [mode, name, signal] = await Promise.all([
      fishComplete("demo daemons restart web "),
      fishComplete("demo daemons restart "),
      fishComplete("demo daemons stop web -s "),
    ])
    expect(mode).toEqual(["graceful", "hard"])
    expect(name).toEqual([])
    // fish shows the flag's help beside a choice that has none.
    expect(signal).toEqual(["KILL\tSignal to send", "TERM\tPolite"])
  })
})

// The generated text's structure, for what running the shells above does not pin down.
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
    // A value named PATH completes file names (usage: docs/spec/reference/complete.md).
    expect(script).toContain("'--config=[Path \\[default: it'\\''s ./x\\]]:PATH:_files'")
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
