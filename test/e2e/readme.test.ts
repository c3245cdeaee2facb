/**
 * The README's quick start, command by command as written, from the repository root: the demo
 * stack starts, lists, logs, stops, comes back with the web UI, and the checkout is as clean
 * afterwards as before. `npx supervisor` is the built bin (what npx runs in this repository);
 * `npm ci` is what set up the tree the tests run in.
 */
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const repo = resolve(__dirname, "../..")
const readme = readFileSync(join(repo, "README.md"), "utf8")
const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Install"))

/** Each command of the section's sh blocks: comments dropped, `a && b` split. */
const commands: ReadonlyArray<string> = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
  (m[1] ?? "")
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "")
    .flatMap((line) => line.split(" && ").map((c) => c.trim())),
)

const status = () => execFileSync("git", ["status", "--porcelain"], { cwd: repo, encoding: "utf8" })

let sb: DaemonSandbox
let before = ""
beforeAll(() => {
  sb = makeDaemonSandbox()
  before = status()
})
afterAll(() => sb.destroy())

/** Runs one README command; `-f` ones are followed until their first line, then Ctrl-C. */
const run = async (command: string): Promise<{ status: number | null; out: string }> => {
  const words = command.split(/\s+/)
  const argv =
    command === "npm run demo"
      ? [join(repo, "scripts", "demo.mjs")]
      : words[0] === "npx" && words[1] === "supervisor"
        ? [BIN, ...words.slice(2)]
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
      "npx supervisor list",
      "npx supervisor logs worker -f",
      "npx supervisor stop --all",
      "npx supervisor supervisor stop",
      "npx supervisor supervisor start --force --web-port 3120",
      "npm run demo",
      "npx supervisor web",
    ])
  })

  it("runs as written, and leaves the checkout clean", async () => {
    const outputs: Array<string> = []
    for (const command of commands.slice(1)) {
      const r = await run(command)
      outputs.push(`$ ${command}\n${r.out}`)
      expect(r.status, outputs.join("\n")).toBe(0)
    }
    const [demo, list, logs, stop, , , , web] = outputs
    expect(demo).toMatch(/✓ demo\/api is running/)
    expect(list).toMatch(/demo\/worker\s+running/)
    expect(logs).toMatch(/worker/)
    expect(stop).toMatch(/✓ demo\/api stopped/)
    expect(web).toMatch(/http:\/\/127\.0\.0\.1:3120\/login\?code=\S+/)
    expect(status()).toBe(before)
  }, 180_000)
})
