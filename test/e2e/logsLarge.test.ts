/**
 * Large read-backs: `logs ID -n 1000000` prints every stored line once, in order, byte for byte,
 * whether the quick client answers (the CLI bundle removed from a copy of the install) or the full
 * CLI does (the quick client removed), with and without timestamps; awkward output (colours,
 * CRLF, invalid UTF-8, lines longer than 64 KiB) prints as the `--json` messages say; `--json` of
 * many lines is one array.
 */
import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  copyInstall,
  type DaemonSandbox,
  type LogEntry,
  makeDaemonSandbox,
  storedLogs,
  waitFor,
} from "./harness.js"

const T = 120_000
const N = 1_000_000
let sb: DaemonSandbox
let dir: string
let quickOnly: string
let fullOnly: string

/** An awkward daemon: colours, CRLF, invalid UTF-8, a 100 KB line, é across the 64 KiB cut, no last newline. */
const AWKWARD = [
  "printf '\\033[31mred\\033[0m plain\\n'",
  "printf 'windows line\\r\\n'",
  "printf 'bad \\377\\376 bytes\\n'",
  "head -c 100000 /dev/zero | tr '\\0' x; echo",
  "i=0; while [ $i -lt 40000 ]; do printf 'é'; i=$((i+1)); done; echo",
  "printf '\\033]0;title\\007after title\\n'",
  'i=0; while [ $i -lt 3000 ]; do echo "line $i"; i=$((i+1)); done',
  "printf 'no newline at the end'",
  "exec sleep 300",
].join("\n")

/** Runs a launcher (the package's `bin`) and collects its output as bytes. */
const launch = (bin: string, args: ReadonlyArray<string>) =>
  new Promise<{ status: number | null; stdout: Buffer; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: dir,
      env: sb.env,
      stdio: ["ignore", "pipe", "pipe"],
    })
    const out: Array<Buffer> = []
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => out.push(d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), T)
    child.on("error", reject)
    child.on("close", (status) => {
      clearTimeout(timer)
      resolve({ status, stdout: Buffer.concat(out), stderr })
    })
  })

const lastId = async (id: string) => (await storedLogs(sb.stateDir, id, 1)).at(-1)?.id

beforeAll(async () => {
  sb = makeDaemonSandbox()
  dir = sb.project(
    "big",
    `[daemons.seq]\nrun = "exec seq 1 ${N}"\nready_delay = 0\n\n[daemons.odd]\nrun = "exec sh odd.sh"\nready_delay = 0\n`,
  )
  sb.write({ "big/odd.sh": `${AWKWARD}\n` })
  expect(sb.cli(["start", "seq", "odd"], dir).status).toBe(0)
  await waitFor("all lines stored", async () => (await lastId("big/seq")) === N, { timeout: 60_000 })
  // the unterminated last line becomes an entry once the output stops growing (1 s)
  await waitFor(
    "the odd daemon's last line",
    async () => (await storedLogs(sb.stateDir, "big/odd", 1)).at(-1)?.message === "no newline at the end",
    { timeout: 30_000 },
  )
  const quick = copyInstall(sb.dir("quick-only"))
  rmSync(join(quick, "cli.cjs")) // only the quick client can answer
  quickOnly = join(quick, "supervisor.cjs")
  const full = copyInstall(sb.dir("full-only"))
  rmSync(join(full, "quick.cjs")) // only the CLI bundle can answer
  fullOnly = join(full, "supervisor.cjs")
}, T)
afterAll(() => sb.destroy(), T)

const seqText = Buffer.from(`${Array.from({ length: N }, (_, i) => i + 1).join("\n")}\n`)

describe("logs ID -n N: a large read-back", () => {
  it(
    "prints all 1,000,000 lines exactly, through the quick client and through the CLI",
    async () => {
      for (const bin of [quickOnly, fullOnly]) {
        const r = await launch(bin, ["logs", "seq", "-n", String(N), "--raw", "--no-timestamp"])
        expect(r.status, r.stderr).toBe(0)
        expect(r.stderr).toBe("")
        expect(r.stdout.length, bin).toBe(seqText.length)
        expect(r.stdout.equals(seqText), bin).toBe(true)
      }
      // the last N: from line 250,001 on, exactly
      const tail = await launch(quickOnly, ["logs", "seq", "-n", "750000", "--no-timestamp"])
      expect(tail.stdout.equals(seqText.subarray(seqText.indexOf("\n250001\n") + 1))).toBe(true)
    },
    T,
  )

  it(
    "with timestamps: every line once, in order, after its time",
    async () => {
      const [quick, full] = await Promise.all([
        launch(quickOnly, ["logs", "seq", "-n", String(N)]),
        launch(fullOnly, ["logs", "seq", "-n", String(N)]),
      ])
      expect(quick.status, quick.stderr).toBe(0)
      expect(full.status, full.stderr).toBe(0)
      expect(quick.stdout.equals(full.stdout)).toBe(true)
      const lines = quick.stdout.toString("latin1").split("\n")
      expect(lines.pop()).toBe("")
      expect(lines).toHaveLength(N)
      const shape = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (\d+)$/
      expect(lines.every((l, i) => shape.exec(l)?.[1] === String(i + 1))).toBe(true)
    },
    T,
  )

  it(
    "awkward output prints as the --json messages say, with and without --raw and timestamps",
    async () => {
      for (const raw of [[], ["--raw"]]) {
        const json = await launch(fullOnly, ["logs", "odd", "-n", "100000", "--json", ...raw])
        const entries = JSON.parse(json.stdout.toString()) as Array<LogEntry>
        expect(entries.length).toBeGreaterThan(3005) // the long lines were split into pieces
        for (const timestamps of [false, true]) {
          const want = entries.map((e) => `${timestamps ? `${e.timestamp} ` : ""}${e.message}\n`).join("")
          const args = ["logs", "odd", "-n", "100000", ...raw, ...(timestamps ? [] : ["--no-timestamp"])]
          for (const bin of [quickOnly, fullOnly]) {
            const r = await launch(bin, args)
            expect(r.status, r.stderr).toBe(0)
            expect(r.stdout.toString(), `${args.join(" ")} (${bin})`).toBe(want)
          }
        }
      }
    },
    T,
  )

  it(
    "--json is one JSON array of the entries (the last N)",
    async () => {
      const r = await sb.cliAsync(["logs", "seq", "-n", "20000", "--json"], dir)
      expect(r.status, r.stderr).toBe(0)
      const entries = JSON.parse(r.stdout) as Array<{ id: number; message: string; daemon_id: string }>
      expect(entries).toHaveLength(20_000)
      expect(entries[0]).toMatchObject({ id: N - 19_999, message: String(N - 19_999), daemon_id: "big/seq" })
      expect(entries.at(-1)?.id).toBe(N)
      const none = await sb.cliAsync(["logs", "seq", "-n", "5", "--grep", "no such text", "--json"], dir)
      expect(JSON.parse(none.stdout)).toEqual([])
    },
    T,
  )
})
