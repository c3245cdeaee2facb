/**
 * A spec of mise's size (about 250 KB, several hundred commands) using every node kind of the
 * usage language, for the large real-world case of issue 17: the e2e test runs it through every
 * `supervisor spec` command, and bench/usage.mjs times them. Deterministic: the same text every
 * time. Two files: the main spec and one it includes (shared flagsets and outputs).
 */

export interface LargeSpec {
  /** File name → content; `main` is the one to open. */
  readonly files: Readonly<Record<string, string>>
  readonly main: string
  /** How many commands it declares, the program itself included. */
  readonly commands: number
}

const WORDS = [
  "activate",
  "alias",
  "backends",
  "bin",
  "cache",
  "completion",
  "config",
  "current",
  "deactivate",
  "direnv",
  "doctor",
  "env",
  "exec",
  "fmt",
  "generate",
  "hook",
  "implode",
  "install",
  "latest",
  "link",
  "lock",
  "ls",
  "outdated",
  "plugins",
  "prune",
  "registry",
  "reshim",
  "run",
  "search",
  "self",
  "settings",
  "shell",
  "sync",
  "tasks",
  "test",
  "tool",
  "trust",
  "uninstall",
  "unuse",
  "upgrade",
  "usage",
  "use",
  "version",
  "watch",
  "where",
  "which",
  "backend",
  "mirror",
  "snapshot",
  "vault",
  "secrets",
  "deploy",
  "preview",
  "audit",
  "graph",
  "bundle",
  "daemon",
  "logs",
  "status",
  "pin",
]
const SUBS = ["add", "get", "list", "remove", "set", "show", "edit", "clear", "info", "update", "check"]

/** A paragraph of help, long like mise's: several lines, some with an example. */
const longHelp = (what: string, i: number): string =>
  [
    `${what} for the current project.`,
    "",
    `This reads the configuration of every directory up to the root and merges it (item ${i}).`,
    `    $ mycli ${what} --verbose`,
  ].join("\n")

const q = (s: string): string => JSON.stringify(s)

/** Flags of a command: two every command has, and a rotating few of the heavier forms. */
const flagLines = (i: number, ind: string): Array<string> => {
  const rotating: ReadonlyArray<ReadonlyArray<string>> = [
    [
      `flag "-o --output <FILE>" help="Write the result to FILE" env="MYCLI_OUTPUT_${i}" {`,
      `  long_help ${q(`Write the result to FILE instead of standard output (item ${i}).`)}`,
      "}",
    ],
    [
      `flag "-j --jobs <N>" help="How many jobs run at once" default="4" conflicts="--serial"`,
      `flag "--serial" help="One job at a time" exclusive=#${i % 7 === 0}`,
    ],
    [
      `flag "--include... <pattern>" help="Only these paths" required=#${i % 11 === 0} { default { "src"; "test"; }; }`,
    ],
    [
      `flag "--mode <MODE>" help="How to run" deprecated=${i % 5 === 0 ? q("use --profile") : "#false"} {`,
      '  arg "<MODE>" {',
      "    choices {",
      '      choice "fast" help="Skip the slow checks"',
      '      choice "safe" help="Check everything" { alias "careful"; }',
      '      choice "legacy" hide=#true',
      "    }",
      "  }",
      '  default_if "--color" "safe"',
      "}",
    ],
    [
      'flag "color: --shell <SHELL>" help="Shell to generate for" help_heading="Output" {',
      '  choices "bash" "zsh" "fish" "nu"',
      '  alias "--sh" hide=#true',
      "}",
    ],
    ['flag "--level [LEVEL]" help="Log level" effect="read" requires="--color"'],
  ]
  const picked = [rotating[i % rotating.length]!, rotating[(i + 2) % rotating.length]!]
  return [`flag "--color" help="Color the output" negate="--no-color" default=#true`, ...picked.flat()].map(
    (l) => `${ind}${l}`,
  )
}

const argLines = (i: number, ind: string): Array<string> => {
  switch (i % 4) {
    case 0:
      return [`${ind}arg "[TOOL@VERSION]…" help="Tools to use" var=#true var_max=16`]
    case 1:
      return [
        `${ind}arg "plugin" help="The plugin" { complete run="mycli plugins ls --all"; }`,
        `${ind}arg "[-- args]..." help="Passed to the plugin" double_dash="required"`,
      ]
    case 2:
      return [
        `${ind}arg "<file>" help="The file" default="mycli.toml" env="MYCLI_FILE" long_help="The file to read"`,
      ]
    default:
      return [`${ind}arg "[SHELL]" help="The shell" { choices "bash" "zsh" "fish"; }`]
  }
}

const subcommand = (word: string, sub: string, i: number): Array<string> => [
  `  cmd ${q(sub)} help=${q(`${sub[0]!.toUpperCase()}${sub.slice(1)} ${word} entries`)} effect=${q(["read", "write", "destructive"][i % 3]!)} {`,
  `    alias ${q(`${sub[0]}${i}`)}`,
  ...(i % 3 === 1
    ? [
        `    long_help ${q(longHelp(`${word} ${sub}`, i))}`,
        `    after_long_help ${q(`Examples:\n\n    $ mycli ${word} ${sub}\n    $ mycli ${word} ${sub} --json`)}`,
      ]
    : []),
  '    use "common"',
  ...flagLines(i, "    "),
  ...argLines(i, "    "),
  ...(i % 3 === 0
    ? [
        '    flag "--json" help="Print JSON"',
        '    output "json" framing="json" media_type="application/json" select="--json" help="One JSON document" {',
        `      schema ${q(JSON.stringify({ type: "object", properties: { name: { type: "string" }, id: { type: "integer" } } }))}`,
        "    }",
      ]
    : []),
  ...(i % 4 === 0 ? [`    exit_code 3 ${q(`no ${word} found`)}`] : []),
  ...(i % 3 === 0
    ? [
        `    example ${q(`mycli ${word} ${sub} --jobs 2`)} header="Two jobs" help=${q(`Runs ${sub} with two jobs`)} lang="sh"`,
      ]
    : []),
  ...(i % 10 === 0 ? ['    group "output" "--json" "--output"'] : []),
  "  }",
]

const topCommand = (word: string, i: number): { readonly lines: Array<string>; readonly count: number } => {
  const subs = SUBS.slice(0, i % 11)
  const lines = [
    `cmd ${q(word)} help=${q(`Manage ${word}`)}${subs.length > 0 ? " subcommand_required=#true" : ""}${i % 13 === 0 ? ' hide=#true deprecated="use tool"' : ""} {`,
    `  alias ${q(`${word}s`)} hide=#true`,
    `  before_help ${q(`${word}: read the manual first`)}`,
    `  long_help ${q(longHelp(word, i))}`,
    ...(subs.length === 0
      ? [...flagLines(i, "  "), ...argLines(i, "  ")]
      : ['  flag "--dry-run" help="Change nothing"']),
    ...(i % 6 === 0 ? [`  mount run=${q(`mycli ${word} --usage-spec`)}`] : []),
    `  complete "plugin" run=${q(`mycli ${word} plugins`)} descriptions=#true`,
    ...subs.flatMap((sub, j) => subcommand(word, sub, i * 10 + j)),
    "}",
  ]
  return { lines, count: 1 + subs.length }
}

export const largeSpec = (): LargeSpec => {
  const shared = [
    "// Shared by every command of mycli.",
    'flagset "common" {',
    '  flag "-q --quiet" help="Print less"',
    '  flag "--profile <NAME>" help="The profile to use" env="MYCLI_PROFILE"',
    "}",
    'output "text" default=#true help="A table for people"',
    'exit_code 0 "success"',
    'exit_code 1 "failure"',
    'exit_code 2 "usage error"',
    "",
  ].join("\n")
  const lines = [
    'min_usage_version "2.0"',
    'name "My CLI"',
    'bin "mycli"',
    'version "2025.1.0"',
    'long_version "2025.1.0\\ncommit 0123abc"',
    'author "The mycli authors"',
    'license "MIT"',
    'repository "https://example.org/mycli"',
    'about "The front-end to your dev env"',
    `long_about ${q(longHelp("mycli", 0))}`,
    'usage "mycli [FLAGS] <COMMAND>"',
    'source_code_link_template "https://example.org/mycli/blob/main/src/cli/{{path}}.rs"',
    "disable_help #false",
    'include file="shared.kdl"',
    "config {",
    '  file "/etc/mycli/config.toml"',
    '  file ".mycli.toml" findup=#true',
    '  prop "jobs" default=4 env="MYCLI_JOBS" help="How many jobs run at once" data_type="integer"',
    '  default "color" #true',
    '  alias "jobs" "parallel"',
    "}",
    'flag "-C --cd <DIR>" help="Change directory first" global=#true',
    'flag "-v --verbose" help="More output" global=#true count=#true var=#true',
    'flag "-y --yes" help="Answer yes to every prompt" global=#true',
    'flag "-f --format <FORMAT>" help="Output format" global=#true',
    'select "--format"',
    'complete "plugin" run="mycli plugins ls" descriptions=#true',
    'complete "dir" type="dir"',
    'example "mycli --help" header="Getting help"',
    'view "tasks" root="tasks"',
    'arg "[TASK]" help="A task to run"',
  ]
  let count = 1
  WORDS.forEach((word, i) => {
    const cmd = topCommand(word, i)
    lines.push(...cmd.lines)
    count += cmd.count
  })
  // Repeat the tree under a second prefix until the spec is mise's size.
  let round = 1
  while (lines.join("\n").length < 245_000) {
    WORDS.slice(0, 20).forEach((word, i) => {
      const cmd = topCommand(`${word}-${round}`, i + round)
      lines.push(...cmd.lines)
      count += cmd.count
    })
    round++
  }
  return {
    files: { "mycli.kdl": `${lines.join("\n")}\n`, "shared.kdl": shared },
    main: "mycli.kdl",
    commands: count,
  }
}
