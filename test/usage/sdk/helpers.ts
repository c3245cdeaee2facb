import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** Helpers of the SDK generator tests: temp dirs, the fixture CLI, running tools with a deadline. */

export const fixturesDir = fileURLToPath(new URL("./fixtures/", import.meta.url))
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url))

/** A fresh temp directory; the caller removes it (see `removeDir`). */
export const makeTempDir = (prefix: string): string =>
  fs.mkdtempSync(path.join(os.tmpdir(), `supervisor-sdk-${prefix}-`))

export const removeDir = (dir: string): void => fs.rmSync(dir, { recursive: true, force: true })

/** Writes generated files (relative path → content) under `dir`. */
export const writeFiles = (dir: string, files: ReadonlyMap<string, string>): void => {
  for (const [relative, content] of files) {
    const file = path.join(dir, relative)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
  }
}

/** Copies the fixture CLI into `dir` as an executable script and returns its path. */
export const installFixtureCli = (dir: string): string => {
  const cli = path.join(dir, "fixture-cli.cjs")
  fs.copyFileSync(path.join(fixturesDir, "fixture-cli.cjs"), cli)
  fs.chmodSync(cli, 0o755)
  return cli
}

export interface RunResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a tool to completion. The deadline only guards against a hang (the child is killed and
 * the promise rejects); it never decides the outcome of a passing run.
 */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly deadlineMs?: number } = {},
): Promise<RunResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? process.cwd(),
      stdio: ["ignore", "pipe", "pipe"],
    })
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    const deadline = setTimeout(() => {
      child.kill("SIGKILL")
      reject(
        new Error(`${command} ${args.join(" ")} did not finish within ${options.deadlineMs ?? 60_000} ms`),
      )
    }, options.deadlineMs ?? 60_000)
    child.once("error", (error) => {
      clearTimeout(deadline)
      reject(error)
    })
    child.once("close", (code) => {
      clearTimeout(deadline)
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      })
    })
  })

/** Runs the repo's TypeScript compiler on a project. */
export const tsc = (project: string): Promise<RunResult> =>
  run(process.execPath, [
    path.join(repoRoot, "node_modules/typescript/bin/tsc"),
    "-p",
    project,
    "--pretty",
    "false",
  ])

/**
 * A tsconfig for compiling generated code outside the repo: the brief's baseline (strict,
 * ES2022, nodenext, Node types) plus `extra`. `typeRoots` points at the repo, since the temp
 * directory has no node_modules of its own.
 */
export const writeTsconfig = (
  dir: string,
  include: ReadonlyArray<string>,
  extra: Record<string, unknown> = {},
) =>
  fs.writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "nodenext",
        types: ["node"],
        typeRoots: [path.join(repoRoot, "node_modules/@types")],
        skipLibCheck: true,
        ...extra,
      },
      include,
    }),
  )
