/**
 * Every ```toml example in docs/configuration.md is run through the built CLI
 * (`node dist/supervisor.cjs config show --json`) in a throwaway machine layout.
 *
 * Markers, as HTML comment lines directly above the opening fence:
 * - `<!-- file: global -->`: the block is the user-level config.toml, not a project file;
 * - `<!-- invalid -->`: the block shows an error, so the CLI must reject it cleanly.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { parse as parseToml } from "smol-toml"
import { afterAll, describe, expect, it } from "vitest"
import { daemonOptionFields } from "../../src/domain/DaemonOptions.js"

const repo = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "../..")
const docPath = nodePath.join(repo, "docs/configuration.md")
const cli = nodePath.join(repo, "dist/supervisor.cjs")
const PROJECT = "demo"

interface Block {
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly heading: string
  readonly text: string
  readonly global: boolean
  readonly invalid: boolean
}

const KNOWN_MARKERS = new Set(["file: global", "invalid"])

const extractBlocks = (markdown: string): Array<Block> => {
  const lines = markdown.split(/\r?\n/)
  const blocks: Array<Block> = []
  let heading = "(top)"
  let fence: string | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined
      continue
    }
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)/.exec(line)
    if (open) {
      const marker = open[2]!
      if (open[3] !== "toml") {
        fence = marker
        continue
      }
      const markers: Array<string> = []
      for (let j = i - 1; j >= 0; j--) {
        const m = /^\s*<!--\s*(.*?)\s*-->\s*$/.exec(lines[j]!)
        if (!m) break
        markers.push(m[1]!)
      }
      const unknown = markers.filter((m) => !KNOWN_MARKERS.has(m))
      if (unknown.length > 0)
        throw new Error(`docs/configuration.md:${i + 1}: unknown marker(s) ${JSON.stringify(unknown)}`)
      const body: Array<string> = []
      let j = i + 1
      for (; j < lines.length && lines[j]!.trim() !== marker; j++) body.push(lines[j]!)
      if (j === lines.length) throw new Error(`docs/configuration.md:${i + 1}: unclosed toml block`)
      blocks.push({
        line: i + 1,
        heading,
        text: `${body.join("\n")}\n`,
        global: markers.includes("file: global"),
        invalid: markers.includes("invalid"),
      })
      i = j
      continue
    }
    const h = /^#{1,6}\s+(.*)$/.exec(line)
    if (h) heading = h[1]!.trim()
  }
  return blocks
}

const markdown = fs.readFileSync(docPath, "utf8")
const blocks = extractBlocks(markdown)
const label = (b: Block) =>
  `block at docs/configuration.md:${b.line} (${b.heading}${b.global ? ", global" : ""}${b.invalid ? ", invalid" : ""})`

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true })
})

interface Run {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** A fresh machine layout with the block in place; runs the built CLI in the project dir. */
const runBlock = (b: Block, args: ReadonlyArray<string>): Run => {
  if (!fs.existsSync(cli))
    throw new Error(`${label(b)}: ${cli} is missing; build it first with \`npm run build\``)
  const root = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-docs-")))
  roots.push(root)
  const home = nodePath.join(root, "home")
  const systemDir = nodePath.join(root, "etc", "supervisor")
  const userDir = nodePath.join(home, ".config", "supervisor")
  const project = nodePath.join(root, "work", PROJECT)
  for (const d of [home, systemDir, userDir, project]) fs.mkdirSync(d, { recursive: true })
  fs.writeFileSync(
    b.global ? nodePath.join(userDir, "config.toml") : nodePath.join(project, "supervisor.toml"),
    b.text,
  )
  // The developer's own SUPERVISOR_* variables must not change the outcome.
  const env: Record<string, string | undefined> = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("SUPERVISOR_")) env[k] = v
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: project,
    env: {
      ...env,
      HOME: home,
      SUPERVISOR_SYSTEM_CONFIG_DIR: systemDir,
      SUPERVISOR_CONFIG_DIR: userDir,
      NO_COLOR: "1",
    },
    encoding: "utf8",
    timeout: 15_000,
  })
  if (r.error) throw new Error(`${label(b)}: could not run the CLI: ${r.error.message}`)
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

const STACK_LINE = /^\s+at /m
const describeRun = (r: Run) => `exit ${r.status}\n--- stdout ---\n${r.stdout}\n--- stderr ---\n${r.stderr}`

const asTable = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}

/** The qualified daemon IDs, group names and slugs a block declares. */
const declared = (b: Block) => {
  const doc = parseToml(b.text) as Record<string, unknown>
  const namespace = b.global ? "global" : typeof doc.namespace === "string" ? doc.namespace : PROJECT
  const daemons = asTable(doc.daemons)
  return {
    daemons: Object.keys(daemons).map((name) => `${namespace}/${name}`),
    daemonTables: Object.values(daemons).map(asTable),
    groups: Object.keys(asTable(doc.groups)),
    slugs: Object.keys(asTable(doc.slugs)),
  }
}

describe("docs/configuration.md examples", () => {
  it("has toml examples, valid and invalid", () => {
    expect(blocks.length).toBeGreaterThan(10)
    expect(blocks.some((b) => b.invalid)).toBe(true)
    expect(blocks.some((b) => b.global && !b.invalid)).toBe(true)
  })

  it("has an example of every daemon key", () => {
    const seen = new Set<string>()
    for (const b of blocks.filter((b) => !b.invalid))
      for (const table of declared(b).daemonTables) for (const key of Object.keys(table)) seen.add(key)
    const missing = Object.keys(daemonOptionFields).filter((k) => !seen.has(k))
    expect(
      missing,
      `daemon keys without a valid example in docs/configuration.md: ${missing.join(", ")}`,
    ).toEqual([])
  })

  for (const b of blocks) {
    if (b.invalid) {
      it(`rejects the ${label(b)}`, () => {
        const r = runBlock(b, ["config", "show", "--json"])
        expect(r.status, `${label(b)} should be rejected\n${describeRun(r)}`).toBe(1)
        expect(r.stderr, `${label(b)}: no message on stderr\n${describeRun(r)}`).toMatch(/^error: \S.*/m)
        expect(`${r.stdout}\n${r.stderr}`, `${label(b)}: stack trace\n${describeRun(r)}`).not.toMatch(
          STACK_LINE,
        )
        if (r.stdout.trim() !== "") {
          const report = JSON.parse(r.stdout) as { valid: boolean; problems: Array<unknown> }
          expect(report.valid, label(b)).toBe(false)
          expect(report.problems.length, label(b)).toBeGreaterThan(0)
        }
      })
    } else {
      it(`accepts the ${label(b)}`, () => {
        const r = runBlock(b, ["config", "show", "--json"])
        expect(r.status, `${label(b)} should load\n${describeRun(r)}`).toBe(0)
        expect(r.stderr, `${label(b)}: stack trace\n${describeRun(r)}`).not.toMatch(STACK_LINE)
        let config: {
          daemons: Record<string, unknown>
          groups: Record<string, unknown>
          slugs: Record<string, unknown>
          warnings: Array<string>
        }
        try {
          config = JSON.parse(r.stdout)
        } catch (e) {
          throw new Error(`${label(b)}: stdout is not JSON (${(e as Error).message})\n${describeRun(r)}`)
        }
        const want = declared(b)
        expect(Object.keys(config.daemons).sort(), `${label(b)}: daemons`).toEqual([...want.daemons].sort())
        expect(Object.keys(config.groups).sort(), `${label(b)}: groups`).toEqual([...want.groups].sort())
        expect(Object.keys(config.slugs).sort(), `${label(b)}: slugs`).toEqual([...want.slugs].sort())
        // the deprecated port keys and pitchfork's other spellings warn by design
        const deprecated = want.daemonTables.some((t) =>
          [
            "expected_port",
            "auto_bump_port",
            "port_bump_attempts",
            "expect",
            "bump",
            "ready",
            "time_retention",
            "line_retention",
            "archive_hook",
          ].some((k) => k in t),
        )
        if (deprecated) expect(config.warnings.length, `${label(b)}: deprecation warning`).toBeGreaterThan(0)
        else expect(config.warnings, `${label(b)}: unexpected warnings`).toEqual([])
      })
    }
  }
})
