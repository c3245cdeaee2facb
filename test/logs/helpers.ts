import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { type Duration, Effect, Schedule } from "effect"
import { type IndexHeader, type IndexRecord, parseLine } from "../../src/logs/indexFile.js"

/** A fresh temp directory, removed when the scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-logs-test-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
)

/**
 * Runs `sh -c script` with stdout and stderr on an O_APPEND fd of `rawPath`, like the
 * supervisor spawns daemons, and waits for it to exit.
 */
export const runWriter = (rawPath: string, script: string): Effect.Effect<number> =>
  Effect.async((resume) => {
    const fd = fs.openSync(rawPath, "a", 0o640)
    const child = spawn("sh", ["-c", script], { stdio: ["ignore", fd, fd] })
    fs.closeSync(fd)
    child.once("error", (err) => resume(Effect.die(err)))
    child.once("close", (code) => resume(Effect.succeed(code ?? -1)))
  })

/** Polls `check` every 20 ms until it returns true; fails after `timeout`. */
export const waitUntil = <E, R>(
  what: string,
  check: Effect.Effect<boolean, E, R>,
  timeout: Duration.DurationInput = "10 seconds",
): Effect.Effect<void, E | Error, R> =>
  check.pipe(
    Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (ok) => ok }),
    Effect.asVoid,
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new Error(`timed out waiting until ${what}`) }),
  )

/** The index file parsed: header and records (every line must parse). */
export const readIndex = (indexPath: string) => {
  const text = fs.readFileSync(indexPath, "utf8")
  const lines = text.split("\n")
  if (lines.pop() !== "") throw new Error(`${indexPath} does not end with a newline`)
  let header: IndexHeader | undefined
  const records: Array<IndexRecord> = []
  for (const line of lines) {
    const parsed = parseLine(line)
    if (parsed === undefined) throw new Error(`unparsable index line ${JSON.stringify(line)}`)
    if (parsed._tag === "header") header = parsed.header
    else records.push(parsed.rec)
  }
  return { header: header!, records }
}

/** Asserts that the records tile the raw bytes from `header.off` and ids run without a gap. */
export const checkTiling = (indexPath: string) => {
  const { header, records } = readIndex(indexPath)
  let off = header.off
  let next = header.next
  let ts = header.ts
  for (const r of records) {
    if (r.off !== off) throw new Error(`record ${JSON.stringify(r)} starts at ${r.off}, expected ${off}`)
    if (r.first !== next)
      throw new Error(`record ${JSON.stringify(r)} starts at id ${r.first}, expected ${next}`)
    if (r.ts < ts) throw new Error(`record ${JSON.stringify(r)} goes back in time`)
    off = r.end
    next = r.first + r.n
    ts = r.ts
  }
  return { header, records, end: off, nextId: next }
}

export const range = (from: number, to: number): Array<number> =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)
