import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { BIN, type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 90_000
const toml = (name: string) => `[daemons.${name}]\nrun = "sleep 300"\nready_delay = 0\n`

/** `clean ARGS` under a pseudo-terminal; `answer` is typed once the question shows. */
const cleanOnTerminal = async (
  box: DaemonSandbox,
  cwd: string,
  args: ReadonlyArray<string>,
  answer?: string,
) => {
  const command = ["node", BIN, "clean", ...args].map((w) => `'${w}'`).join(" ")
  const child = spawn("script", ["-qefc", command, "/dev/null"], {
    cwd,
    env: { ...box.env, TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  })
  let out = ""
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d
  })
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
  if (answer !== undefined) {
    await waitFor("the question", () => out.includes("[y/N]") || undefined, { timeout: 30_000 })
    child.stdin.write(`${answer}\r`)
  }
  const code = await exited
  child.stdin.destroy()
  return { code, out }
}

describe("clean: this project's daemons by default, asked on a terminal", () => {
  let box: DaemonSandbox
  let a: string
  let b: string
  const logOf = (id: string) => join(box.stateDir, "logs", `${id.replace("/", "--")}.out`)
  const known = (cwd: string) =>
    (
      JSON.parse(box.cli(["list", "--json"], cwd).stdout) as Array<{
        id: { qualified: string }
        status: { type: string }
      }>
    )
      .filter((e) => e.status.type === "stopped")
      .map((e) => e.id.qualified)

  beforeEach(() => {
    box = makeDaemonSandbox()
    a = box.project("a", toml("x"))
    b = box.project("b", toml("y"))
    for (const [dir, id] of [
      [a, "x"],
      [b, "y"],
    ] as const) {
      const started = box.cli(["start", id], dir)
      expect(started.status, started.stderr).toBe(0)
      expect(box.cli(["stop", id], dir).status).toBe(0)
    }
    expect(existsSync(logOf("a/x")) && existsSync(logOf("b/y"))).toBe(true)
  })
  afterEach(() => box.destroy())

  it(
    "without a terminal: forgets only this project's stopped daemons; --all-projects every project's; IDs those named",
    () => {
      const r = box.cli(["clean"], a)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain("forgot a/x")
      expect(r.stdout).not.toContain("b/y")
      expect(existsSync(logOf("a/x"))).toBe(false)
      expect(existsSync(logOf("b/y"))).toBe(true)
      expect(known(a)).toEqual(["b/y"])
      const none = box.cli(["clean", "--json"], a)
      expect(JSON.parse(none.stdout)).toEqual({ removed: [] })
      const all = box.cli(["clean", "--all-projects", "--json"], a)
      expect(all.status, all.stderr).toBe(0)
      expect(JSON.parse(all.stdout)).toEqual({ removed: ["b/y"] })
      expect(existsSync(logOf("b/y"))).toBe(false)
      expect(box.cli(["clean", "--all-projects", "x"], a).status).toBe(2)
      // another project's daemon, named
      expect(box.cli(["start", "y"], b).status).toBe(0)
      expect(box.cli(["stop", "y"], b).status).toBe(0)
      const named = box.cli(["clean", "b/y", "--json"], a)
      expect(named.status, named.stderr).toBe(0)
      expect(JSON.parse(named.stdout)).toEqual({ removed: ["b/y"] })
    },
    T,
  )

  it(
    "on a terminal: lists them and asks; n forgets nothing, y forgets them, --yes does not ask",
    async () => {
      const no = await cleanOnTerminal(box, a, [], "n")
      expect(no.code).toBe(0)
      expect(no.out).toContain("a/x")
      expect(no.out).toContain("Forget 1 daemon and delete its logs? [y/N]")
      expect(no.out).toContain("nothing forgotten")
      expect(existsSync(logOf("a/x"))).toBe(true)
      expect(known(a)).toEqual(["a/x", "b/y"])

      const yes = await cleanOnTerminal(box, a, ["--all-projects"], "y")
      expect(yes.code).toBe(0)
      expect(yes.out).toContain("Forget 2 daemons and delete their logs? [y/N]")
      expect(yes.out).toContain("forgot a/x")
      expect(yes.out).toContain("forgot b/y")
      expect(known(a)).toEqual([])

      for (const [dir, id] of [
        [a, "x"],
        [b, "y"],
      ] as const) {
        expect(box.cli(["start", id], dir).status).toBe(0)
        expect(box.cli(["stop", id], dir).status).toBe(0)
      }
      const unasked = await cleanOnTerminal(box, b, ["--yes"])
      expect(unasked.code).toBe(0)
      expect(unasked.out).not.toContain("[y/N]")
      expect(unasked.out).toContain("forgot b/y")
      expect(known(a)).toEqual(["a/x"])
    },
    T,
  )
})
