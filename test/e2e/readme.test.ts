/**
 * The README's quick start, command by command as written, from the repository root: the demo
 * stack starts, lists, logs, stops, comes back with the web UI, and the checkout is as clean
 * afterwards as before. `npm ci` is what set up the tree the tests run in. Its install, as
 * written, into a temporary npm prefix; and no install advice in the README or docs/ that
 * fetches the registry's unrelated `supervisor` package while `devsupervisor` is unpublished.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DaemonSandbox, freePort, makeDaemonSandbox, waitFor } from "./harness.js"

const repo = resolve(__dirname, "../..")
const readme = readFileSync(join(repo, "README.md"), "utf8")
const section = (from: string, to: string) => readme.slice(readme.indexOf(from), readme.indexOf(to))
const quickStart = section("## Quick start", "## Install")

/** Each command of a section's sh blocks: comments dropped, `a && b` split. */
const shCommands = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    (m[1] ?? "")
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, "").trim())
      .filter((line) => line !== "")
      .flatMap((line) => line.split(" && ").map((c) => c.trim())),
  )
const commands = shCommands(quickStart)

const status = () => execFileSync("git", ["status", "--porcelain"], { cwd: repo, encoding: "utf8" })

let sb: DaemonSandbox
let before = ""
beforeAll(() => {
  sb = makeDaemonSandbox()
  // the README shows a clone's output (`demo/api` on 3000); this repository may be checked out as
  // a git worktree, whose projects would be `demo.<worktree>` on moved ports (docs/worktrees.md)
  sb.env.SUPERVISOR_WORKTREE = "false"
  before = status()
})
afterAll(() => sb.destroy())

/** Runs one README command; `-f` ones are followed until their first line, then Ctrl-C. */
const run = async (command: string): Promise<{ status: number | null; out: string }> => {
  const words = command.split(/\s+/)
  const argv =
    command === "npm run demo"
      ? [join(repo, "scripts", "demo.mjs")]
      : words[0] === "node" && words[1] === "dist/supervisor.cjs"
        ? words.slice(1)
        : undefined
  if (argv === undefined) throw new Error(`the README runs a command this test does not know: ${command}`)
  const child = spawn(process.execPath, argv, { cwd: repo, env: sb.env, stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout.on("data", (d) => {
    out += d
  })
  child.stderr.on("data", (d) => {
    out += d
  })
  const closed = new Promise<number | null>((ok) => child.on("close", ok))
  if (words.includes("-f")) {
    await waitFor(`a line of ${command}`, () => out.includes("\n"), { timeout: 15_000 })
    child.kill("SIGINT")
  }
  return { status: await closed, out }
}

describe("README quick start", () => {
  it("is the commands this test runs", () => {
    expect(commands).toEqual([
      "npm ci",
      "npm run demo",
      "node dist/supervisor.cjs list",
      "node dist/supervisor.cjs logs worker -f",
      "node dist/supervisor.cjs stop --all",
      "node dist/supervisor.cjs supervisor stop",
      "node dist/supervisor.cjs supervisor start --force --web-port 3120",
      "npm run demo",
      "node dist/supervisor.cjs web",
    ])
  })

  it("runs as written, and leaves the checkout clean", async () => {
    const outputs: Array<string> = []
    // the README's web port, 3120, may be taken on this machine: the same command on a free port
    const port = await freePort()
    for (const command of commands.slice(1)) {
      const r = await run(command.replace("--web-port 3120", `--web-port ${port}`))
      outputs.push(`$ ${command}\n${r.out}`)
      expect(r.status, outputs.join("\n")).toBe(0)
    }
    const [demo, list, logs, stop, , , , web] = outputs
    expect(demo).toMatch(/✓ demo\/api is running/)
    expect(list).toMatch(/demo\/worker\s+running/)
    expect(logs).toMatch(/worker/)
    expect(stop).toMatch(/✓ demo\/api stopped/)
    expect(web).toMatch(new RegExp(`http://127\\.0\\.0\\.1:${port}/login\\?code=\\S+`))
    expect(status()).toBe(before)
  }, 180_000)
})

/** The README and every docs/*.md (the generated docs/cli/ reference included), by file name. */
const userDocs = (): ReadonlyArray<readonly [string, string]> => {
  const docs = join(repo, "docs")
  const md = (dir: string): ReadonlyArray<string> =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? md(join(dir, e.name)) : e.name.endsWith(".md") ? [join(dir, e.name)] : [],
    )
  return [join(repo, "README.md"), ...md(docs)].map(
    (f) => [f.slice(repo.length + 1), readFileSync(f, "utf8")] as const,
  )
}

describe("README install", () => {
  it("gives no install or npx advice that reaches the registry's unrelated `supervisor` package", () => {
    // code spans and code blocks: what a reader copies and runs
    const advice = userDocs().flatMap(([file, text]) =>
      [...text.matchAll(/```[a-z]*\n([\s\S]*?)```|`([^`\n]+)`/g)].flatMap((m) => {
        const code = m[1] ?? m[2] ?? ""
        const bad = [
          /\bnpx\s+(--?\S+\s+)*(supervisor|devsupervisor)\b/, // npx <name>: a registry fetch outside the clone
          /"command":\s*"npx",\s*"args":\s*\["supervisor"/, // the same in an MCP client's JSON
          /\bnpm\s+(install|i|add)\s+(-\S+\s+)*(supervisor|devsupervisor)(@\S*)?(\s|$)/, // unpublished / wrong package
        ]
        return bad.some((re) => re.test(code)) ? [`${file}: ${code.trim().split("\n")[0]}`] : []
      }),
    )
    expect(advice).toEqual([])
  })

  it("installs, as written, a working `supervisor` and its man page", async () => {
    const install = shCommands(section("## Install", "In a project of your own"))
    expect(install).toEqual(["npm ci", "npm install -g ."])
    const prefix = mkdtempSync(join(tmpdir(), "sv-install-"))
    try {
      // `npm ci` set up and built this tree already; the global install goes to a prefix of its
      // own. Its `prepare` script would rebuild dist/ in place while other test files run it.
      const env = {
        ...process.env,
        npm_config_prefix: prefix,
        npm_config_ignore_scripts: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
      }
      // asynchronously: a minute-long spawnSync would block the test worker's own messages
      const npm = spawn("npm", ["install", "-g", "."], { cwd: repo, env, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      npm.stdout.on("data", (d) => {
        out += d
      })
      npm.stderr.on("data", (d) => {
        out += d
      })
      const code = await new Promise<number | null>((ok) => npm.on("close", ok))
      expect(code, out).toBe(0)
      const bin = join(prefix, "bin", "supervisor")
      // run from outside the clone, as the installed command on PATH
      const v = spawnSync(bin, ["--version"], { cwd: prefix, encoding: "utf8", env: { ...process.env } })
      expect(v.stdout.trim()).toBe(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version)
      expect(existsSync(join(prefix, "share", "man", "man1", "supervisor.1"))).toBe(true)
    } finally {
      rmSync(prefix, { recursive: true, force: true })
    }
  }, 600_000)
})
