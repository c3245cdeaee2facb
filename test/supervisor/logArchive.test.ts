// The archive command as the supervisor runs it: stdin, environment, exit status, timeout.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { liveArchiveRunner } from "../../src/supervisor/logArchive.js"
import { tempDir } from "../logs/helpers.js"
import { recordingSignals } from "../process/helpers.js"

const signals = recordingSignals()

const runner = (command: string, dir: string, log: Array<string>, timeout = Duration.seconds(10)) =>
  liveArchiveRunner(
    {
      command,
      shell: ["sh", "-c"],
      env: { PATH: process.env.PATH, HOME: dir },
      timeout,
      log: (line) => log.push(line),
    },
    signals.service,
  )

describe("liveArchiveRunner", () => {
  it.scopedLive("gives the lines on stdin, with the daemon and the reason in the environment", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const log: Array<string> = []
      const run = runner(
        'cat >> archive.jsonl; echo "$SUPERVISOR_DAEMON_ID $SUPERVISOR_DAEMON_NAMESPACE $SUPERVISOR_ARCHIVE_REASON" > env.txt; echo archived',
        dir,
        log,
      )
      expect(yield* run({ daemon: "proj/web", reason: "age", input: '{"id":1}\n{"id":2}\n' })).toBe(true)
      expect(fs.readFileSync(nodePath.join(dir, "archive.jsonl"), "utf8")).toBe('{"id":1}\n{"id":2}\n')
      expect(fs.readFileSync(nodePath.join(dir, "env.txt"), "utf8")).toBe("proj/web proj age\n")
      expect(log).toEqual(["[archive proj/web] archived"])
    }),
  )

  it.scopedLive(
    "a non-zero exit or a timeout is a failure, said in the log; a command that reads nothing is fine",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const log: Array<string> = []
        expect(yield* runner("exit 3", dir, log)({ daemon: "p/a", reason: "count", input: "x\n" })).toBe(
          false,
        )
        expect(log).toEqual(["[archive p/a] exited with code 3"])
        const slow = runner("sleep 30", dir, log, Duration.millis(200))
        expect(yield* slow({ daemon: "p/a", reason: "count", input: "x\n" })).toBe(false)
        expect(log.at(-1)).toBe("[archive p/a] timed out after 200ms")
        expect(signals.sent.at(-1)?.signal).toBe("SIGKILL")
        const big = "y".repeat(1 << 20)
        expect(yield* runner("true", dir, log)({ daemon: "p/a", reason: "count", input: big })).toBe(true)
      }),
  )
})
