import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"

export const BIN = resolve(__dirname, "../../dist/supervisor.cjs")

export interface Sandbox {
  readonly root: string
  readonly home: string
  readonly env: Record<string, string>
  /** Writes files relative to the sandbox root. */
  readonly write: (files: Record<string, string>) => void
  readonly cleanup: () => void
}

/** A temporary tree with its own HOME and global config dirs: nothing of the real machine leaks in. */
export const makeSandbox = (): Sandbox => {
  const root = mkdtempSync(join(tmpdir(), "sv-e2e-"))
  const home = join(root, "home")
  mkdirSync(home)
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(root, "etc", "supervisor"),
    SUPERVISOR_CONFIG_DIR: join(home, ".config", "supervisor"),
    NO_COLOR: "1",
  }
  return {
    root,
    home,
    env,
    write: (files) => {
      for (const [rel, content] of Object.entries(files)) {
        const path = join(root, rel)
        mkdirSync(dirname(path), { recursive: true })
        writeFileSync(path, content)
      }
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  }
}

export interface CliResult {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI, as a user would. */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { cwd: string; env: Record<string, string> },
): CliResult => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`)
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: options.env,
    encoding: "utf8",
    timeout: 30_000,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A stack trace line, which must never reach a user for bad input. */
export const STACK_LINE = /^\s+at .+[(:]/m
