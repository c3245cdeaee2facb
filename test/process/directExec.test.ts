import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { dashPwd, directExec as directExecWith } from "../../src/process/directExec.js"
import { resolveExecutable } from "../../src/process/executable.js"

const SH = ["sh", "-c"]
const SH_PATH = resolveExecutable("sh", process.env.PATH)
const SH_IS_DASH = path.basename(fs.realpathSync(SH_PATH)) === "dash"
/** With this machine's sh; the tests that need dash say so. */
const directExec = (shell: ReadonlyArray<string>, command: string) => directExecWith(shell, SH_PATH, command)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "sv-direct-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

describe("directExec", () => {
  it("gives the argv of `exec` followed by plain words, run by sh -c (where sh is dash)", () => {
    const expected = (argv: ReadonlyArray<string>) => (SH_IS_DASH ? argv : undefined)
    expect(directExec(SH, "exec sleep 100000")).toEqual(expected(["sleep", "100000"]))
    expect(directExec(["/bin/sh", "-c"], "  exec  node server.js --port=3000  ")).toEqual(
      expected(["node", "server.js", "--port=3000"]),
    )
    expect(directExec(SH, "exec ./bin/api -v a,b:c@d%e+f")).toEqual(
      expected(["./bin/api", "-v", "a,b:c@d%e+f"]),
    )
  })

  it("leaves to the shell what it would change or treat specially", () => {
    for (const run of [
      "sleep 100", // no exec: the shell is the tracked process
      "exec", // nothing to exec
      'exec echo "a b"', // quoting
      "exec echo $HOME", // expansion
      "exec ls *.js", // globbing
      "exec ~/bin/x", // tilde
      "exec x > out.log", // redirection
      "exec x; echo y", // a list
      "exec x && y",
      "exec x | y",
      "exec x &",
      "exec x # comment",
      "exec -a name x", // an option of exec
      "exec VAR=1 x", // an assignment
      "exec x\nexec y", // several lines
      "exec x\\ y", // an escape
      "exec $(which x)",
      "exec x{a,b}",
    ])
      expect(directExec(SH, run), run).toBeUndefined()
  })

  it("only for the default shell: another may read start-up files (BASH_ENV)", () => {
    expect(directExec(["bash", "-c"], "exec sleep 1")).toBeUndefined()
    expect(directExec(["mise", "exec", "--", "sh", "-c"], "exec sleep 1")).toBeUndefined()
    expect(directExec(["sh"], "exec sleep 1")).toBeUndefined()
  })

  it("only where sh is dash", () => {
    const bash = resolveExecutable("bash", process.env.PATH)
    expect(directExecWith(SH, bash, "exec sleep 1")).toBeUndefined()
  })
})

describe("dashPwd", () => {
  it("is what dash exports: the inherited PWD when it names the directory, else its real path", () => {
    const real = path.join(root, "real")
    const link = path.join(root, "link")
    fs.mkdirSync(real)
    fs.symlinkSync(real, link)
    const cases: ReadonlyArray<readonly [string, string | undefined, string]> = [
      [real, undefined, real],
      [link, undefined, real],
      [link, link, link],
      [real, link, link],
      [real, "/elsewhere", real],
      [real, "relative/path", real],
    ]
    const dash = resolveExecutable("dash", process.env.PATH)
    for (const [cwd, pwd, expected] of cases) {
      expect(dashPwd(cwd, pwd), `${cwd} with PWD=${pwd}`).toBe(expected)
      // and dash itself agrees, where it is installed (Debian and Ubuntu always have it)
      if (dash.includes("/"))
        expect(
          execFileSync(dash, ["-c", "exec env"], {
            cwd,
            env: { PATH: "/usr/bin:/bin", ...(pwd === undefined ? {} : { PWD: pwd }) },
            encoding: "utf8",
          })
            .split("\n")
            .find((l) => l.startsWith("PWD=")),
        ).toBe(`PWD=${expected}`)
    }
  })
})
