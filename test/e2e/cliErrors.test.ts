/**
 * Usage errors through the built CLI: an unknown command, subcommand or flag has one `error:`
 * form with the closest match and exit 2, on every path (the quick client's `start` and `logs`
 * included); an unknown daemon names the closest IDs; a file where an ID goes says how to run
 * it; `start --all` with nothing configured says where it looked.
 */
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, makeDaemonSandbox, makeSandbox, runCli, type Sandbox } from "./harness.js"

const T = 30_000

describe("unknown commands and flags (no supervisor needed)", () => {
  let sb: Sandbox
  beforeAll(() => {
    sb = makeSandbox()
  })
  afterAll(() => sb.cleanup())
  const cli = (...args: Array<string>) => runCli(args, { cwd: sb.root, env: sb.env })

  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["stats"], "error: unknown command `stats`; did you mean `status`? (see `supervisor --help`)"],
    [["strat", "web"], "error: unknown command `strat`; did you mean `start`? (see `supervisor --help`)"],
    [["show"], "error: unknown command `show`; did you mean `config show`? (see `supervisor --help`)"],
    [["frobnicate"], "error: unknown command `frobnicate` (see `supervisor --help`)"],
    [["--bogus"], "error: unknown option --bogus (see `supervisor --help`)"],
    [["--vresion"], "error: unknown option --vresion; did you mean `--version`? (see `supervisor --help`)"],
    [
      ["start", "web", "--forse"],
      "error: unknown option --forse; did you mean `--force`? (see `supervisor start --help`)",
    ],
    [
      ["s", "web", "--forse"],
      "error: unknown option --forse; did you mean `--force`? (see `supervisor start --help`)",
    ],
    [["stop", "--bogus", "web"], "error: unknown option --bogus (see `supervisor stop --help`)"],
    [
      ["logs", "web", "--tial"],
      "error: unknown option --tial; did you mean `--tail`? (see `supervisor logs --help`)",
    ],
    [
      ["status", "web", "--jsno"],
      "error: unknown option --jsno; did you mean `--json`? (see `supervisor status --help`)",
    ],
    [
      ["run", "x", "--forse", "--", "echo"],
      "error: unknown option --forse; did you mean `--force`? (see `supervisor run --help`)",
    ],
    [
      ["config", "show", "--jsno"],
      "error: unknown option --jsno; did you mean `--json`? (see `supervisor config show --help`)",
    ],
    [
      ["supervisor", "status", "--jsno"],
      "error: unknown option --jsno; did you mean `--json`? (see `supervisor supervisor status --help`)",
    ],
    [
      ["spec", "check", "x.kdl", "--bogus"],
      "error: unknown option --bogus (see `supervisor spec check --help`)",
    ],
    [
      ["config", "frob"],
      "error: unknown subcommand `supervisor config frob`; use one of show, validate, get (see `supervisor config --help`)",
    ],
    [
      ["config", "shwo"],
      "error: unknown subcommand `supervisor config shwo`; did you mean `show`? use one of show, validate, get (see `supervisor config --help`)",
    ],
    [
      ["supervisor", "frob"],
      "error: unknown subcommand `supervisor supervisor frob`; use one of run, start, stop, status, token (see `supervisor supervisor --help`)",
    ],
    [
      ["sup", "strat"],
      "error: unknown subcommand `supervisor supervisor strat`; did you mean `start`? use one of run, start, stop, status, token (see `supervisor supervisor --help`)",
    ],
    [
      ["spec", "frob"],
      "error: unknown subcommand `supervisor spec frob`; use one of check, resolve, docs, describe, sdk, fmt, complete (see `supervisor spec --help`)",
    ],
    [
      ["stat"],
      "error: missing argument <id>: the daemon to show; `supervisor list` shows every daemon (see `supervisor status --help`)",
    ],
  ]

  it("one `error:` line with the closest match, exit 2", () => {
    for (const [args, line] of cases) {
      const r = cli(...args)
      expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.stderr, args.join(" ")).toBe(`${line}\n`)
      expect(r.stdout).toBe("")
    }
  })

  it("known short flags, clusters and values that look like flags are no unknown option", () => {
    // these get as far as the configuration (no daemon here): the arguments were fine
    for (const args of [
      ["start", "-fq", "web"],
      ["logs", "-n5", "web"],
      ["logs", "--grep", "-x", "web"],
      ["logs", "--lines=5", "web"],
    ]) {
      const r = cli(...args)
      expect(r.stderr, args.join(" ")).not.toContain("unknown option")
      expect(r.status, args.join(" ")).toBe(1)
    }
  })
})

describe("unknown daemons, files and an empty --all (a real supervisor)", () => {
  let sb: DaemonSandbox
  let shop: string
  let other: string
  let empty: string
  beforeAll(() => {
    sb = makeDaemonSandbox()
    const daemon = 'run = "exec sleep 300"\nready_delay = 0\n'
    shop = sb.project("shop", `[daemons.web]\n${daemon}\n[daemons.worker]\n${daemon}`)
    other = sb.project("other", `[daemons.web]\n${daemon}`)
    empty = sb.dir("empty")
    expect(sb.cli(["start", "--all"], shop).status).toBe(0)
    expect(sb.cli(["start", "web"], other).status).toBe(0)
  }, T)
  afterAll(() => sb.destroy(), T)

  it(
    "an unknown daemon gets the closest IDs as typed from here and how to list them, exit 1",
    () => {
      const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
        [shop, ["start", "wbe"], "daemon wbe not found; did you mean web or other/web?"],
        [empty, ["start", "wbe"], "daemon wbe not found; did you mean other/web or shop/web?"],
        [empty, ["stop", "wrker"], "daemon wrker not found; did you mean shop/worker?"],
        [empty, ["status", "shop/wbe"], "daemon shop/wbe not found; did you mean shop/web?"],
        [empty, ["logs", "wrker"], "daemon wrker not found; did you mean shop/worker?"],
        [shop, ["start", "zzzzzz"], "daemon zzzzzz not found"],
      ]
      for (const [cwd, args, message] of cases) {
        const r = sb.cli(args, cwd)
        expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(1)
        expect(r.stderr).toBe(`error: ${message} (\`supervisor list\` lists the daemons)\n`)
      }
    },
    T,
  )

  it(
    "a file where a daemon ID goes says how to run it (interpreter by extension, ID from its name)",
    () => {
      writeFileSync(join(empty, "run.sh"), "#!/bin/sh\nsleep 1\n")
      chmodSync(join(empty, "run.sh"), 0o755)
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["server.js", "server", "node server.js"],
        ["app.py", "app", "python3 app.py"],
        ["./run.sh", "run", "./run.sh"],
        ["run.sh", "run", "./run.sh"],
      ]
      for (const [file, id, command] of cases) {
        const r = sb.cli(["start", file], empty)
        expect(r.status, r.stderr).toBe(1)
        expect(r.stderr).toBe(
          `error: daemon ${file} not found; ${file} is a file, not a daemon: run it as one with \`supervisor run ${id} -- ${command}\`, or declare it in supervisor.toml ([daemons.${id}] run = "${command}")\n`,
        )
      }
    },
    T,
  )

  it(
    "start --all with nothing configured names the files and directories searched and how to create one",
    () => {
      for (const args of [
        ["start", "--all"],
        ["s", "--all", "--force"],
        ["start", "-a"],
      ]) {
        const r = sb.cli(args, empty)
        expect(r.status, r.stderr).toBe(0)
        expect(r.stdout).toBe(
          [
            "no daemons to start: no configuration file found; searched:",
            `  .config/supervisor.toml or supervisor.toml (and their .local.toml) in ${empty} and each directory above it`,
            `  ${sb.env.SUPERVISOR_CONFIG_DIR}/config.toml (user)`,
            `  ${sb.env.SUPERVISOR_SYSTEM_CONFIG_DIR}/config.toml (system)`,
            `create ${join(empty, "supervisor.toml")} with a daemon, e.g.:`,
            "  [daemons.web]",
            '  run = "node server.js"',
            "then `supervisor start --all`; or run a command without a file: `supervisor run ID -- CMD...`",
            "",
          ].join("\n"),
        )
      }
      expect(sb.cli(["start", "--all", "--quiet"], empty).stdout).toBe("")
      expect(JSON.parse(sb.cli(["start", "--all", "--json"], empty).stdout)).toEqual([])
    },
    T,
  )

  it(
    "the quick client's start and logs leave usage errors to the CLI: the same line, exit 2",
    () => {
      // a supervisor runs: `start` and `logs` are first offered to dist/quick.cjs
      for (const [args, line] of [
        [
          ["start", "web", "--forse"],
          "error: unknown option --forse; did you mean `--force`? (see `supervisor start --help`)",
        ],
        [
          ["logs", "web", "--tial"],
          "error: unknown option --tial; did you mean `--tail`? (see `supervisor logs --help`)",
        ],
        [["s", "web", "-x"], "error: unknown option -x (see `supervisor start --help`)"],
      ] as const) {
        const r = sb.cli(args, shop)
        expect(r.status, r.stderr).toBe(2)
        expect(r.stderr).toBe(`${line}\n`)
      }
    },
    T,
  )
})
