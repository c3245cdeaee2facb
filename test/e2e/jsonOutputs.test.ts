/**
 * Every JSON output of the CLI, through the built CLI against a real supervisor and a few
 * daemons, decoded (strictly: no undeclared key) with the Schema its usage spec declares. The
 * commands come from the command tree (src/cli/usageSpec/cliSpec.ts): each one with a `--json`
 * flag must declare an output with a schema, and each output with a schema is run, so a new
 * command or output is covered without touching this file (a positional argument may need a
 * sample in ARG_SAMPLES). Outputs that other flags or states select are run as VARIANTS.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Either, ParseResult, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { rootCommand } from "../../src/cli/commands.js"
import { cliSpec } from "../../src/cli/usageSpec/cliSpec.js"
import { CLI_EXTRAS } from "../../src/cli/usageSpec/outputs.js"
import { allCommands } from "../../src/usage/consume/commands.js"
import type { Command, Output } from "../../src/usage/model.js"
import { type DaemonSandbox, makeDaemonSandbox, spawnCli, waitFor } from "./harness.js"

const T = 120_000
const spec = cliSpec(rootCommand, { version: "0.0.0-test" })
let sb: DaemonSandbox
let app: string
let broken: string
let specFile: string
let procfile: string

const PROJECT = `[daemons.pool]
run = "exec sleep 300"
instances = 1
ready_delay = 0

[daemons.web]
run = "echo hello; exec sleep 300"
ready_delay = 0

[daemons.once]
run = "echo done; exit 0"
ready_delay = 0

[daemons.never]
run = "exec sleep 300"

[daemons.crash]
run = "echo oops; exit 3"
ready_delay = 1

[daemons.typist]
run = "exec cat"
stdin = "pipe"
ready_delay = 0
`

/** Positional arguments by name: what to give a command that takes one. */
const ARG_SAMPLES: Record<string, (path: string) => ReadonlyArray<string>> = {
  // `run` takes an ad-hoc daemon (no configured ID) and its command after `--`
  id: (path) => [
    path === "run"
      ? "app/adhoc"
      : path === "scale"
        ? "app/pool"
        : path === "send"
          ? "app/typist"
          : "app/once",
  ],
  // `send app/typist hello`
  text: () => ["hello"],
  // `scale app/pool 2`
  count: () => ["2"],
  command: (path) => (path === "run" ? ["--", "sh", "-c", "exit 0"] : []),
  // `import` reads a Procfile (printed, not written: the project has its supervisor.toml)
  file: (path) => (path === "import" ? [procfile, "--dry-run"] : [specFile]),
  source: () => ["procfile"],
  // `settings get`
  key: () => ["web.bind_port"],
  // `export`
  target: () => ["compose"],
}

interface Run {
  readonly args: ReadonlyArray<string>
  readonly cwd: () => string
  readonly status: number
  /** The output name, and the command path that declares it. */
  readonly output: string
  readonly path: string
}

/** Outputs selected by other flags, or printed in other states, than the generated runs. */
const VARIANTS: ReadonlyArray<Run> = [
  { path: "start", output: "json", args: ["start", "crash", "--json"], cwd: () => app, status: 1 },
  { path: "stop", output: "json", args: ["stop", "never", "web", "--json"], cwd: () => app, status: 0 },
  { path: "up", output: "json", args: ["up", "crash", "--json"], cwd: () => app, status: 1 },
  { path: "logs", output: "cleared", args: ["logs", "once", "--clear", "--json"], cwd: () => app, status: 0 },
  { path: "config show", output: "json", args: ["config", "show", "--json"], cwd: () => broken, status: 1 },
  {
    path: "config validate",
    output: "json",
    args: ["config", "validate", "--json"],
    cwd: () => broken,
    status: 1,
  },
]

/** The Schema an output of a command declares (the one its JSON Schema in the spec is made of). */
const declaredSchema = (path: string, output: string) =>
  (path === "" ? CLI_EXTRAS.root : CLI_EXTRAS.commands[path])?.outputs?.find((o) => o.name === output)?.schema

const strict = { onExcessProperty: "error", errors: "all" } as const

/** Decodes one JSON document with the schema `path`'s output declares; a message when it does not fit. */
const misfit = (path: string, output: string, text: string): string | undefined => {
  const schema = declaredSchema(path, output)
  if (schema === undefined) return `${path}: output ${output} declares no schema`
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `${path} (${output}): not JSON (${String(e)}): ${text.slice(0, 200)}`
  }
  const decoded = Schema.decodeUnknownEither(schema as Schema.Schema<unknown, unknown>, strict)(value)
  return Either.isLeft(decoded)
    ? `${path} (${output}): ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
    : undefined
}

/** The command line that asks `command` for `output`: its path, sample arguments, the selector. */
const invocation = (command: Command, output: Output): ReadonlyArray<string> | string => {
  const path = command.path.join(" ")
  const before: Array<string> = []
  const after: Array<string> = []
  for (const arg of command.args) {
    const sample = ARG_SAMPLES[arg.name]?.(path)
    if (sample === undefined) {
      if (arg.required) return `${path}: no sample for its argument <${arg.name}> (add one to ARG_SAMPLES)`
      continue
    }
    ;(sample[0] === "--" ? after : before).push(...sample)
  }
  const selector = output.selector?.kind === "present" ? [output.selector.flag] : []
  return [...command.path, ...before, ...selector, ...after]
}

/** Every output of a command that is one JSON document and that a flag or nothing selects. */
const generatedRuns = (): { runs: Array<Run>; problems: Array<string> } => {
  const runs: Array<Run> = []
  const problems: Array<string> = []
  for (const command of allCommands(spec)) {
    const path = command.path.join(" ")
    const hasJsonFlag = command.flags.some((f) => f.long.includes("json"))
    const byJson = command.outputs.find((o) => o.selector?.kind === "present" && o.selector.flag === "--json")
    if (hasJsonFlag && (byJson === undefined || declaredSchema(path, byJson.name) === undefined))
      problems.push(`${path || "(the program)"}: has --json but declares no output schema for it`)
    for (const output of command.outputs) {
      if (output.framing !== "json" || declaredSchema(path, output.name) === undefined) continue
      if (output.selector === null && !output.default) continue // selected by flags together: a VARIANT
      const args = invocation(command, output)
      if (typeof args === "string") problems.push(args)
      else runs.push({ path, output: output.name, args, cwd: () => app, status: 0 })
    }
  }
  return { runs, problems }
}

beforeAll(() => {
  sb = makeDaemonSandbox()
  app = sb.project("app", PROJECT)
  broken = sb.project("broken", '[daemons.bad]\nrun = "true"\nretyr = 3\n')
  specFile = join(sb.root, "supervisor.kdl")
  const usage = sb.cli(["usage"], sb.root)
  expect(usage.status, usage.stderr).toBe(0)
  writeFileSync(specFile, usage.stdout)
  procfile = join(sb.root, "Procfile")
  writeFileSync(procfile, "web: exec node server.js\n")
  expect(sb.cli(["supervisor", "start"], app).status).toBe(0)
  const started = sb.cli(["start", "web", "typist"], app)
  expect(started.status, started.stderr).toBe(0)
}, T)
afterAll(() => sb.destroy())

describe("every JSON output decodes with its declared schema (e2e)", () => {
  it(
    "every command with --json declares a schema for it; every declared JSON output is printed as declared",
    () => {
      const { runs, problems } = generatedRuns()
      expect(problems).toEqual([])
      const covered = new Set([...runs, ...VARIANTS].map((r) => `${r.path}:${r.output}`))
      for (const p of [
        "list",
        "start",
        "stop",
        "logs",
        "supervisor status",
        "config show",
        "spec resolve",
        "schema",
      ])
        expect(
          [...covered].some((c) => c.startsWith(`${p}:`)),
          p,
        ).toBe(true)
      const misfits: Array<string> = []
      for (const run of [...runs, ...VARIANTS]) {
        const r = sb.cli(run.args, run.cwd())
        const what = `supervisor ${run.args.join(" ")}`
        if (r.status !== run.status) misfits.push(`${what}: exit ${r.status}, not ${run.status}: ${r.stderr}`)
        else {
          const problem = misfit(run.path, run.output, r.stdout)
          if (problem !== undefined) misfits.push(`${what}: ${problem}`)
        }
      }
      expect(misfits).toEqual([])
    },
    T,
  )

  it(
    "logs --tail --json: each line decodes with the jsonl output's schema",
    async () => {
      const tail = spawnCli(["logs", "web", "--tail", "--json"], { cwd: app, env: sb.env })
      try {
        await waitFor("the stored line", () => tail.stdout().includes("\n"))
        const lines = tail.stdout().split("\n").filter(Boolean)
        expect(lines.length).toBeGreaterThan(0)
        for (const line of lines) expect(misfit("logs", "jsonl", line)).toBeUndefined()
      } finally {
        tail.child.kill("SIGTERM")
        await tail.exited
      }
    },
    T,
  )

  it(
    "supervisor status --json when no supervisor runs",
    () => {
      expect(sb.cli(["supervisor", "stop"], app).status).toBe(0)
      const r = sb.cli(["supervisor", "status", "--json"], app)
      expect(r.status).toBe(1)
      expect(misfit("supervisor status", "json", r.stdout)).toBeUndefined()
      expect(JSON.parse(r.stdout)).toMatchObject({ running: false })
    },
    T,
  )
})
