// The hook scripts parse in their shells, quote odd paths, and run `cd --shell-pid` with the
// shell's own pid; the quick `cd` reads its arguments and the supervisor's answer.
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { monotonicMicros } from "../../src/domain/cliNotices.js"
import { parseCdArgs } from "../../src/quick/cd.js"
import { hookScript, SHELLS } from "../../src/shell/hooks.js"

const command = ["/opt/node it's/bin/node", "/home/me/my tools/supervisor.cjs"]

describe("shell hooks", () => {
  it.each(SHELLS)("the %s hook is valid syntax for its shell", (shell) => {
    const script = hookScript(shell, command)
    const r = spawnSync(shell, ["-n", "-c", script], { encoding: "utf8" })
    expect(r.status, r.stderr).toBe(0)
  })

  it("bash and zsh report $$, fish $fish_pid; each quotes the paths", () => {
    expect(hookScript("bash", command)).toContain(
      `NODE_EXTRA_CA_CERTS= '/opt/node it'\\''s/bin/node' '/home/me/my tools/supervisor.cjs' cd --shell-pid $$`,
    )
    expect(hookScript("zsh", command)).toContain("add-zsh-hook chpwd _supervisor_hook")
    expect(hookScript("fish", command)).toContain(
      `NODE_EXTRA_CA_CERTS= '/opt/node it\\'s/bin/node' '/home/me/my tools/supervisor.cjs' cd --shell-pid $fish_pid`,
    )
    expect(hookScript("fish", command)).toContain("--on-variable PWD")
  })

  // Node parses NODE_EXTRA_CA_CERTS at start-up; the launcher puts it back (scripts/launcher.cjs)
  it.each(SHELLS)("the %s hook starts node without NODE_EXTRA_CA_CERTS and hands it over", (shell) => {
    const show = ["sh", "-c", `echo "[\${NODE_EXTRA_CA_CERTS-unset}][\${SUPERVISOR_EXTRA_CA_CERTS-unset}]"`]
    const run = (env: Record<string, string>) => {
      const args =
        shell === "fish" ? ["--no-config", "-c", hookScript(shell, show)] : ["-c", hookScript(shell, show)]
      const r = spawnSync(shell, args, {
        encoding: "utf8",
        cwd: "/",
        env: { PATH: process.env.PATH ?? "", ...env },
      })
      expect(r.status, r.stderr).toBe(0)
      return r.stdout.trim()
    }
    expect(run({ NODE_EXTRA_CA_CERTS: "/etc/corp ca.pem" })).toBe("[][/etc/corp ca.pem]")
    expect(run({})).toBe("[][]")
  })

  it("the bash hook runs once at load and then only when the directory changed", () => {
    const script = hookScript("bash", ["echo"])
    const r = spawnSync(
      "bash",
      ["--norc", "-c", `${script}\ncd /tmp; _supervisor_hook; _supervisor_hook; cd /; _supervisor_hook`],
      { encoding: "utf8", cwd: "/" },
    )
    expect(r.stdout.trim().split("\n")).toHaveLength(3)
  })
})

describe("quick cd", () => {
  it("takes --shell-pid N (or =N), --background and --at T, nothing else", () => {
    expect(parseCdArgs(["--shell-pid", "42"])).toEqual({ pid: 42, background: false, at: undefined })
    expect(parseCdArgs(["--shell-pid=42", "--background"])).toEqual({
      pid: 42,
      background: true,
      at: undefined,
    })
    expect(parseCdArgs(["--shell-pid", "42", "--background", "--at", "123456789012"])).toEqual({
      pid: 42,
      background: true,
      at: 123456789012,
    })
    expect(parseCdArgs(["--at=0", "--shell-pid=7"])).toEqual({ pid: 7, background: false, at: 0 })
    expect(parseCdArgs([])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "x"])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "0"])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "1", "--shell-pid", "2"])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "1", "--at", "-5"])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "1", "--at", "1", "--at", "2"])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "1", "--at"])).toBeUndefined()
    expect(parseCdArgs(["--shell-pid", "1", "--verbose"])).toBeUndefined()
  })

  it("stamps on a clock every process shares, in whole microseconds", async () => {
    const { execFileSync } = await import("node:child_process")
    const before = monotonicMicros()
    const child = Number(
      execFileSync(
        process.execPath,
        ["-e", "process.stdout.write(String(process.hrtime.bigint() / 1000n))"],
        {
          encoding: "utf8",
        },
      ),
    )
    expect(Number.isSafeInteger(before)).toBe(true)
    expect(child).toBeGreaterThan(before)
    expect(monotonicMicros()).toBeGreaterThan(child)
  })
})
