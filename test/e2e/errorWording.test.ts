/**
 * Errors a first-time user meets, through the built CLI: @effect/cli's own parse errors in the
 * CLI's `error:` form with the flag or argument they are about (a missing target, a missing
 * required option, a value that is not a number), a TOML key given twice by name, a misspelt
 * property of a usage spec with the closest one, and no "auto-start is disabled" when it is not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeSandbox, runCli, type Sandbox } from "./harness.js"

let sb: Sandbox
beforeAll(() => {
  sb = makeSandbox()
})
afterAll(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: sb.root, env: sb.env })

describe("parse errors name what is missing or wrong", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [
      ["import"],
      "error: missing argument <source>: one of procfile, pm2, compose (see `supervisor import --help`)",
    ],
    [
      ["export"],
      "error: missing argument <target>: one of systemd, compose, kubernetes, nomad (see `supervisor export --help`)",
    ],
    [
      ["spec", "sdk", "x.kdl", "--lang", "typescript"],
      "error: missing option --out (see `supervisor spec sdk --help`)",
    ],
    [
      ["spec", "sdk", "x.kdl"],
      "error: missing option --lang\nerror: missing option --out (see `supervisor spec sdk --help`)",
    ],
    [
      ["spec", "sdk", "x.kdl", "--lang", "ts"],
      "error: invalid lang 'ts' for --lang; expected one of: typescript, python\nerror: missing option --out (see `supervisor spec sdk --help`)",
    ],
    [["logs", "-n", "abc"], 'error: -n "abc": not an integer (see `supervisor logs --help`)'],
    [["logs", "web", "--lines=abc"], 'error: --lines "abc": not an integer (see `supervisor logs --help`)'],
    [["logs", "-nabc"], 'error: -n "abc": not an integer (see `supervisor logs --help`)'],
  ]

  it("in the one `error:` form, exit 2", () => {
    for (const [args, text] of cases) {
      const r = cli(...args)
      expect(r.stderr, args.join(" ")).toBe(`${text}\n`)
      expect(r.status, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
    }
  })
})

describe("a TOML key or table given twice", () => {
  it("is named, with the line of its first definition", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [
        '[daemons.api]\nrun = "sleep 100"\nrun = "sleep 5"\n',
        `supervisor.toml:3: daemons.api.run: TOML syntax error: the key is set twice (first on line 2)\n  hint: keep one of them: a TOML key is set once`,
      ],
      [
        '[daemons.api]\nrun = "sleep 100"\n\n[daemons.api]\nready_delay = "1s"\n',
        "supervisor.toml:4: daemons.api: TOML syntax error: the table [daemons.api] is defined twice (first on line 1)\n  hint: write the keys of [daemons.api] under one header",
      ],
      [
        'daemons.api.run = "x"\n[daemons]\n',
        "supervisor.toml:2: daemons: TOML syntax error: the table [daemons] is defined twice (first on line 1)\n  hint: write the keys of [daemons] under one header",
      ],
    ]
    for (const [toml, text] of cases) {
      sb.write({ "supervisor.toml": toml })
      const r = cli("config", "validate")
      expect(r.stderr).toBe(`error: ${sb.root}/${text}\n1 problem found\n`)
      expect(r.status).toBe(1)
    }
  })
})

describe("spec check", () => {
  it("suggests the closest property for a misspelt one, letters swapped included", () => {
    sb.write({
      "x.kdl": ['name "x"', 'bin "x"', 'flag "--foo" hlep="the foo"', 'cmd "run" hepl="runs"', ""].join("\n"),
    })
    const r = cli("spec", "check", "x.kdl")
    expect(r.stderr).toContain(
      'x.kdl:3: x: flag "--foo": unknown property hlep="the foo" (did you mean help?)',
    )
    expect(r.stderr).toContain('x.kdl:4: x: cmd "run": unknown property hepl="runs" (did you mean help?)')
    expect(r.status).toBe(1)
  })
})

describe("a command that never starts the supervisor", () => {
  it("says it is not running, not that auto-start is disabled when it is not", () => {
    sb.write({ "supervisor.toml": '[daemons.api]\nrun = "sleep 100"\n' })
    const r = cli("web")
    expect(r.stderr).toMatch(/^error: the supervisor is not running \(no socket at .*\): start it with/)
    expect(r.stderr).not.toContain("auto-start")
    expect(r.status).toBe(1)
  })
})
