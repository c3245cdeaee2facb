/**
 * Completions of values, through the built CLI: the scripts of `--completions bash|zsh|fish` ask
 * the hidden `supervisor complete daemons|groups|settings` for daemon IDs, group names and
 * setting keys, which answers from the configuration seen from here and a running supervisor,
 * and never starts one. bash and fish complete for real; zsh's script is loaded and checked.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BIN, type DaemonSandbox, makeDaemonSandbox, supervisorPids } from "./harness.js"

const T = 30_000

let sb: DaemonSandbox
let shop: string
let env: Record<string, string>
beforeAll(() => {
  sb = makeDaemonSandbox()
  const daemon = 'run = "exec sleep 300"\nready_delay = 0\n'
  shop = sb.project(
    "shop",
    `[daemons.web]\n${daemon}\n[daemons.worker]\n${daemon}\n[groups.backend]\ndaemons = ["web", "worker"]\n`,
  )
  // `supervisor` on PATH, as the scripts call it
  const bin = sb.dir("bin")
  writeFileSync(join(bin, "supervisor"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  chmodSync(join(bin, "supervisor"), 0o755)
  env = { ...sb.env, PATH: `${bin}:${sb.env.PATH}` }
})
afterAll(() => sb.destroy(), T)

const run = (command: string, args: ReadonlyArray<string>, cwd = shop) => {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 20_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
const lines = (text: string) => text.split("\n").filter((l) => l !== "")

/** The script of `shell`, written to a file to source. */
const script = (shell: string) => {
  const r = run("supervisor", ["--completions", shell])
  expect(r.status, r.stderr).toBe(0)
  const file = join(sb.root, `completion.${shell}`)
  writeFileSync(file, r.stdout)
  return { file, text: r.stdout }
}

/** What bash's completion function offers for the words (the last one being typed). */
const bash = (file: string, words: ReadonlyArray<string>) => {
  const quoted = words.map((w) => `'${w}'`).join(" ")
  const r = run("bash", [
    "-c",
    `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _supervisor; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ])
  expect(r.status, r.stderr).toBe(0)
  return lines(r.stdout)
}

describe("supervisor complete", () => {
  it(
    "prints the daemons as typed here (short names, then qualified IDs), the groups and the setting keys, and starts no supervisor",
    () => {
      const daemons = run("supervisor", ["complete", "daemons"])
      expect(daemons.status, daemons.stderr).toBe(0)
      expect(lines(daemons.stdout)).toEqual(["web", "worker", "shop/web", "shop/worker"])
      expect(lines(run("supervisor", ["complete", "groups"]).stdout)).toEqual(["backend"])
      const settings = lines(run("supervisor", ["complete", "settings"]).stdout)
      expect(settings).toEqual(
        expect.arrayContaining([
          "settings.web.bind_port",
          "settings.supervisor.auto_start",
          "settings.logs.line_retention",
        ]),
      )
      // nothing was started for it
      expect(supervisorPids(sb.stateDir)).toEqual([])
      expect(existsSync(join(sb.stateDir, "sock", "api.sock"))).toBe(false)
      // hidden: not in the help
      expect(run("supervisor", ["--help"]).stdout).not.toMatch(/^ {2}complete /m)
    },
    T,
  )

  it(
    "with a supervisor running, adds the daemons it knows from other projects",
    () => {
      const other = sb.project("other", '[daemons.api]\nrun = "exec sleep 300"\nready_delay = 0\n')
      expect(run("supervisor", ["start", "api"], other).status).toBe(0)
      expect(lines(run("supervisor", ["complete", "daemons"]).stdout)).toEqual([
        "web",
        "worker",
        "other/api",
        "shop/web",
        "shop/worker",
      ])
    },
    T,
  )
})

describe("the completion scripts", () => {
  it(
    "bash completes daemon IDs, group names and setting keys by calling the CLI",
    () => {
      const { file, text } = script("bash")
      expect(text).toContain("'supervisor complete daemons'")
      expect(bash(file, ["supervisor", "start", ""])).toEqual(
        expect.arrayContaining(["web", "worker", "shop/web", "shop/worker"]),
      )
      expect(bash(file, ["supervisor", "stop", "wor"])).toEqual(["worker"])
      expect(bash(file, ["supervisor", "logs", "shop/w"])).toEqual(["shop/web", "shop/worker"])
      expect(bash(file, ["supervisor", "s", "--group", ""])).toEqual(["backend"])
      expect(bash(file, ["supervisor", "config", "get", "settings.web.bind_"])).toEqual([
        "settings.web.bind_address",
        "settings.web.bind_port",
      ])
      // commands and flags as before
      expect(bash(file, ["supervisor", "sta"])).toEqual(expect.arrayContaining(["start", "status"]))
    },
    T,
  )

  it.skipIf(run("sh", ["-c", "command -v fish"]).status !== 0)(
    "fish completes daemon IDs and group names by calling the CLI",
    () => {
      const { file, text } = script("fish")
      expect(text).toContain("'supervisor complete daemons'")
      const complete = (line: string) =>
        lines(run("fish", ["-N", "-c", `source '${file}'; complete -C '${line}'`]).stdout).map(
          (l) => l.split("\t")[0],
        )
      expect(complete("supervisor start ")).toEqual(expect.arrayContaining(["web", "worker", "shop/web"]))
      expect(complete("supervisor start --group ")).toEqual(["backend"])
    },
    T,
  )

  it.skipIf(run("sh", ["-c", "command -v zsh"]).status !== 0)(
    "zsh's script loads and calls the same completer for IDs, groups and keys",
    () => {
      const { file, text } = script("zsh")
      for (const kind of ["daemons", "groups", "settings"])
        expect(text).toContain(`'supervisor complete ${kind}'`)
      const r = run("zsh", [
        "-c",
        `autoload -Uz compinit && compinit -u -d '${join(sb.root, "zcompdump")}' && source '${file}'`,
      ])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stderr).toBe("")
    },
    T,
  )
})
