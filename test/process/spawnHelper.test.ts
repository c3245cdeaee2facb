import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { builtHere, helperPrograms } from "../../src/process/helperPrograms.js"
import type { ExitStatus } from "../../src/process/ProcessService.js"
import { decodeWaitStatus, makeSpawnHelperPool, PRCTL, SCHED_SETATTR } from "../../src/process/spawnHelper.js"
import { spawnHelperBinary } from "../../src/process/spawnHelperBinary.js"
import { SPAWN_HELPER_SCRIPT } from "../../src/process/spawnHelperScript.js"
import { alive, PATH, readText, statOf } from "./helpers.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "sv-helper-"))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** Resolves when `check` holds, polling; rejects after 5 s. */
const until = async (what: string, check: () => boolean) => {
  const deadline = Date.now() + 5000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The pids whose parent is `pid`. */
const childrenOf = (pid: number): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((p) => statOf(p)?.ppid === pid)

/** A request to run `command` with `sh -c` in `dir`. */
const shellIn =
  (dir: string) =>
  (command: string, out = path.join(dir, "out.log")) => ({
    file: "/bin/sh",
    argv: ["sh", "-c", command],
    cwd: dir,
    env: { PATH },
    outputFile: out,
  })

describe("decodeWaitStatus", () => {
  it("reads an exit code from the high byte and a signal from the low bits", () => {
    expect(decodeWaitStatus(0)).toEqual({ code: 0, signal: null, known: true })
    expect(decodeWaitStatus(3 << 8)).toEqual({ code: 3, signal: null, known: true })
    expect(decodeWaitStatus(15)).toEqual({ code: null, signal: "SIGTERM", known: true })
    expect(decodeWaitStatus(9 | 0x80)).toEqual({ code: null, signal: "SIGKILL", known: true }) // core dumped
  })
})

/** The executable a process runs. */
const exeOf = (pid: number) => fs.readlinkSync(`/proc/${pid}/exe`)

describe("which spawn helper", () => {
  const dir = fs.mkdtempSync(path.join(root, "which-"))
  const shell = shellIn(dir)
  it("is built: dist/spawn-helper (npm run build, with the machine's C compiler)", () => {
    expect(fs.existsSync(spawnHelperBinary), `${spawnHelperBinary} is missing: is there a cc?`).toBe(true)
  })

  it("the C one where it is built, else Perl's; none when switched off, or with neither at hand", async () => {
    const { SUPERVISOR_SPAWN_HELPER: _, ...unset } = process.env
    expect(helperPrograms(unset).map((p) => p.file)).toEqual([
      spawnHelperBinary,
      expect.stringMatching(/perl$/),
    ])
    expect(makeSpawnHelperPool({ ...process.env, SUPERVISOR_SPAWN_HELPER: "0" })()).toBeUndefined()
    expect(makeSpawnHelperPool({ PATH: dir, SUPERVISOR_SPAWN_HELPER: "perl" })()).toBeUndefined()
    // the C one needs no Perl
    const helpers = makeSpawnHelperPool({ PATH: dir })
    const helper = helpers()!
    await until(
      "the helper's start",
      () => helper.pid() !== undefined && fs.existsSync(`/proc/${helper.pid()}`),
    )
    expect(exeOf(helper.pid()!)).toBe(fs.realpathSync(spawnHelperBinary))
    helpers.close()
  })

  it("the built one only where it was built for this machine's architecture", () => {
    expect(builtHere(spawnHelperBinary)).toBe(true)
    const other = process.arch === "arm64" ? "x64" : "arm64"
    expect(builtHere(spawnHelperBinary, other)).toBe(false)
    // a copy whose ELF header names another machine (e_machine 183 is aarch64, 62 x86-64)
    const elf = fs.readFileSync(spawnHelperBinary)
    elf.writeUInt16LE(process.arch === "arm64" ? 62 : 183, 18)
    const foreign = path.join(dir, "foreign-helper")
    fs.writeFileSync(foreign, elf, { mode: 0o755 })
    expect(builtHere(foreign)).toBe(false)
    const script = path.join(dir, "script-helper")
    fs.writeFileSync(script, "#!/bin/sh\nexit 0\n", { mode: 0o755 })
    expect(builtHere(script)).toBe(false)
    expect(builtHere(path.join(dir, "missing-helper"))).toBe(false)
  })

  it("a program that cannot start is not tried again: the next one takes over", async () => {
    const perl = helperPrograms({ ...process.env, SUPERVISOR_SPAWN_HELPER: "perl" })
    const helpers = makeSpawnHelperPool(process.env, {
      programs: [{ file: path.join(dir, "no-such-helper"), args: [] }, ...perl],
    })
    const first = await helpers()!.spawn(shell("true"), () => {})
    expect(first).toEqual({
      error: { code: "EHELPER", syscall: "spawn", message: "the spawn helper exited" },
    })
    const second = helpers()!
    const exits: Array<ExitStatus> = []
    expect("pid" in (await second.spawn(shell("exit 4"), (s) => exits.push(s)))).toBe(true)
    expect(exeOf(second.pid()!)).toMatch(/perl/)
    await until("the exit", () => exits.length === 1)
    expect(exits).toEqual([{ code: 4, signal: null, known: true }])
    helpers.close()
  })
})

const PROGRAMS = [
  { name: "C", choice: "c", command: [spawnHelperBinary] },
  { name: "Perl", choice: "perl", command: ["perl", "-e", SPAWN_HELPER_SCRIPT] },
] as const

describe.each(PROGRAMS)("the spawn helper in $name", ({ choice, command }) => {
  const env = { ...process.env, SUPERVISOR_SPAWN_HELPER: choice }
  const dir = fs.mkdtempSync(path.join(root, `${choice}-`))
  const shell = shellIn(dir)
  /** The helper program itself, with its four numbers. */
  const raw = (...numbers: Array<string>) =>
    spawn(command[0], [...command.slice(1), ...numbers], { stdio: ["pipe", "pipe", "inherit"] })

  it("passes any bytes but NUL through: tabs, newlines, non-ASCII, empty arguments, spaces in paths", async () => {
    const helper = makeSpawnHelperPool(env)()!
    const spaced = path.join(dir, "a dir\twith tab")
    fs.mkdirSync(spaced)
    const out = path.join(spaced, "out put.log")
    const exits: Array<ExitStatus> = []
    const started = await helper.spawn(
      {
        file: "/bin/sh",
        argv: ["sh", "-c", 'printf "[%s]\\n" "$VALUE" "$0" "$1" "$(pwd)"', "", "é ü"],
        cwd: spaced,
        env: { PATH, VALUE: "tab\tnew\nline=x" },
        outputFile: out,
      },
      (s) => exits.push(s),
    )
    expect("pid" in started).toBe(true)
    await until("the exit", () => exits.length === 1)
    expect(exits[0]).toEqual({ code: 0, signal: null, known: true })
    expect(readText(out)).toBe(`[tab\tnew\nline=x]\n[]\n[é ü]\n[${spaced}]\n`)
  })

  it("answers in the order it was asked, and every exit after its daemon's answer", async () => {
    const helper = makeSpawnHelperPool(env)()!
    const answered: Array<number> = []
    const exits: Array<ExitStatus> = []
    // daemons that end at once (their exits race their answers), and a failure among them
    const runs = Array.from({ length: 20 }, (_, i) =>
      helper
        .spawn(
          i === 7 ? { ...shell("true"), file: path.join(dir, "no-such-shell") } : shell(`exit ${i}`),
          (s) => exits.push(s),
        )
        .then((r) => {
          answered.push(i)
          return r
        }),
    )
    const results = await Promise.all(runs)
    expect(answered).toEqual(Array.from({ length: 20 }, (_, i) => i))
    expect(results.filter((r) => "error" in r)).toHaveLength(1)
    await until("every exit", () => exits.length === 19)
    expect(exits.map((e) => e.code).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
    ])
  })

  it("reports a failed step with its errno, as Node words it", async () => {
    const helper = makeSpawnHelperPool(env)()
    expect(helper).toBeDefined()
    const noDir = await helper!.spawn(shell("true", path.join(dir, "missing", "out.log")), () => {})
    expect(noDir).toEqual({
      error: {
        code: "ENOENT",
        syscall: "open",
        message: `ENOENT: no such file or directory, open '${path.join(dir, "missing", "out.log")}'`,
      },
    })
    const noShell = await helper!.spawn({ ...shell("true"), file: path.join(dir, "no-shell") }, () => {})
    expect(noShell).toEqual({ error: { code: "ENOENT", syscall: "exec", message: "spawn sh ENOENT" } })
    const noCwd = await helper!.spawn({ ...shell("true"), cwd: path.join(dir, "gone") }, () => {})
    expect(noCwd).toMatchObject({ error: { code: "ENOENT", syscall: "chdir" } })
  })

  it("when it dies, its daemons are watched until they end (status unknown), and a new one takes over", async () => {
    const helpers = makeSpawnHelperPool(env)
    const first = helpers()!
    const exits: Array<ExitStatus> = []
    const started = await first.spawn(shell("echo started; exec sleep 30"), (s) => exits.push(s))
    if (!("pid" in started)) throw new Error(started.error.message)
    const helperPid = first.pid()!
    expect(statOf(started.pid)?.ppid).toBe(helperPid)
    process.kill(helperPid, "SIGKILL")
    await until("the helper to be gone", () => first.pid() === undefined)
    expect(alive(started.pid)).toBe(true) // the daemon does not depend on its helper
    process.kill(-started.pid, "SIGTERM")
    await until("the orphan's exit to be noticed", () => exits.length === 1)
    expect(exits).toEqual([{ code: null, signal: null, known: false }])

    const second = helpers()!
    expect(second.pid()).not.toBe(helperPid)
    const again: Array<ExitStatus> = []
    const next = await second.spawn(shell("exit 7"), (s) => again.push(s))
    expect("pid" in next).toBe(true)
    await until("the exit", () => again.length === 1)
    expect(again).toEqual([{ code: 7, signal: null, known: true }])
    expect(readText(path.join(dir, "out.log"))).toContain("started")
  })

  it("closing the pool (the supervisor's scope ends) ends the helper; its daemons keep running; no new helper starts", async () => {
    const helpers = makeSpawnHelperPool(env)
    const helper = helpers()!
    const started = await helper.spawn(shell("exec sleep 30"), () => {})
    if (!("pid" in started)) throw new Error(started.error.message)
    const helperPid = helper.pid()!
    helpers.close()
    await until("the helper to exit", () => !alive(helperPid))
    expect(alive(started.pid)).toBe(true)
    expect(helpers()).toBeUndefined() // Node forks from now on
    process.kill(-started.pid, "SIGKILL")
  })

  it("a child it forked but never answered for when it dies is ended, not left running untracked", async () => {
    const helper = makeSpawnHelperPool(env)()!
    const helperPid = helper.pid()!
    // the child blocks opening its output file (a FIFO nobody reads): forked, no answer yet
    const fifo = path.join(dir, "fifo")
    execFileSync("mkfifo", [fifo])
    const answer = helper.spawn({ ...shell("true"), outputFile: fifo }, () => {})
    const child = await until("the forked child", () => childrenOf(helperPid).length === 1).then(
      () => childrenOf(helperPid)[0]!,
    )
    process.kill(helperPid, "SIGKILL")
    expect(await answer).toEqual({
      error: { code: "EHELPER", syscall: "spawn", message: "the spawn helper exited" },
    })
    await until("the child to be gone", () => !alive(child) || statOf(child)?.state === "Z")
  })

  it("as a child subreaper (container mode) takes in the orphans of its daemons and reaps them; only its daemons' exits are heard", async () => {
    const helper = makeSpawnHelperPool(env, { subreaper: true })()!
    const exits: Array<ExitStatus> = []
    const pidFile = path.join(dir, "orphan.pid")
    // the subshell leaves a sleep behind, whose parent is then gone: a double fork
    const started = await helper.spawn(shell(`(sleep 30 & echo $! > '${pidFile}'); exec sleep 30`), (s) =>
      exits.push(s),
    )
    if (!("pid" in started)) throw new Error(started.error.message)
    await until("the orphan's pid", () => /^\d+\n$/.test(readText(pidFile)))
    const orphan = Number(readText(pidFile))
    await until("the orphan re-parented to the helper", () => statOf(orphan)?.ppid === helper.pid())
    // once it ends (told here, not after a time that a stalled test could miss): reaped, no
    // zombie left behind, not even for a moment longer than its exit
    process.kill(orphan, "SIGTERM")
    await until("the orphan reaped", () => statOf(orphan) === undefined)
    expect(exits).toEqual([])
    process.kill(-started.pid, "SIGTERM")
    await until("the daemon's exit", () => exits.length === 1)
    expect(exits).toEqual([{ code: null, signal: "SIGTERM", known: true }])
  })

  it("says nothing of an orphan it reaps: its replies are its daemons' answers and exits only", async () => {
    const prctl = PRCTL[process.arch]
    if (prctl === undefined) throw new Error(`no prctl number known for ${process.arch}`)
    const helper = raw("0", "1089", String(prctl))
    let out = ""
    helper.stdout.on("data", (d: Buffer) => {
      out += d.toString()
    })
    const pidFile = path.join(dir, "quiet-orphan.pid")
    const command = `(sleep 0.2 & echo $! > '${pidFile}'); exec sleep 30`
    const log = path.join(dir, "quiet.log")
    helper.stdin.write(
      ["S", "1", dir, log, "/bin/sh", "3", "sh", "-c", command, "1", `PATH=${PATH}`, ""].join("\x00"),
    )
    await until("the answer", () => /^P\t1\t\d+\n/m.test(out))
    const daemon = Number(/^P\t1\t(\d+)/m.exec(out)![1])
    await until("the orphan's pid", () => /^\d+\n$/.test(readText(pidFile)))
    const orphan = Number(readText(pidFile))
    await until("the orphan reaped", () => statOf(orphan) === undefined)
    expect(out).toBe(`F\t1\t${daemon}\nP\t1\t${daemon}\n`)
    process.kill(daemon, "SIGKILL")
    await until("the daemon's exit", () => /^X\t/m.test(out))
    expect(out).toBe(`F\t1\t${daemon}\nP\t1\t${daemon}\nX\t${daemon}\t9\n`)
    helper.stdin.end()
  })

  it("asks for a 0.1 ms time slice for its parent's main thread, keeping its nice value", async () => {
    const number = SCHED_SETATTR[process.arch]
    if (number === undefined) throw new Error(`no sched_setattr number known for ${process.arch}`)
    // the parent: a niced shell that waits for the helper
    const parent = spawn(
      "nice",
      ["-n", "3", "sh", "-c", '"$@"; :', "sh", ...command, "0", "1089", "0", String(number)],
      {
        stdio: ["pipe", "pipe", "inherit"],
      },
    )
    const sched = () => readText(`/proc/${parent.pid}/sched`)
    const slice = () => /^se\.slice\s*:\s*(\d+)/m.exec(sched())?.[1]
    const [major = 0, minor = 0] = os.release().split(".").map(Number)
    // custom slices are Linux 6.12's (EEVDF); older kernels ignore the field
    if (major > 6 || (major === 6 && minor >= 12))
      await until("the parent's slice", () => slice() === "100000")
    else {
      // the helper runs all the same: it answers a request
      let out = ""
      parent.stdout.on("data", (d: Buffer) => {
        out += d.toString()
      })
      parent.stdin.write(
        ["S", "1", dir, path.join(dir, "slice.log"), "/bin/true", "1", "true", "0", ""].join("\x00"),
      )
      await until("the answer", () => /^P\t1\t\d+\n/m.test(out))
    }
    expect(/^prio\s*:\s*(\d+)/m.exec(sched())?.[1]).toBe("123") // nice 3 kept
    expect(/^policy\s*:\s*(\d+)/m.exec(sched())?.[1]).toBe("0") // still SCHED_OTHER
    parent.stdin.end()
    await new Promise((r) => parent.once("exit", r))
  })

  it("takes a request whose fields come in pieces, empty ones included", async () => {
    const helper = raw("0", "1089")
    let out = ""
    helper.stdout.on("data", (d: Buffer) => {
      out += d.toString()
    })
    const file = path.join(dir, "pieces.log")
    const pieces = [
      "S\x001\x00",
      `${dir}\x00${file}\x00/usr/bin/printf\x004\x00printf\x00[%s]\x00`,
      "\x00",
      "x\x001\x00PATH=/usr/bin:/bin\x00",
    ]
    for (const piece of pieces) {
      helper.stdin.write(piece)
      await new Promise((r) => setTimeout(r, 30)) // separate reads on the helper's side
    }
    await until("the answer and the exit", () => /^P\t1\t\d+\n/m.test(out) && /^X\t/m.test(out))
    expect(readText(file)).toBe("[][x]")
    helper.stdin.end()
  })
})
