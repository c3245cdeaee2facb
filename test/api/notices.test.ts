// Autostop notices for the CLI: a request with the CLI header takes the pending notices into its
// answer's header, once; other requests (browsers, scripts) take none; the CLI prints them.
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { withNotices } from "../../src/api/notices.js"
import {
  CD_ANSWER_TIMEOUT_MS,
  CLI_HEADER,
  cdAnswerAwaited,
  decodeNotices,
  encodeNotices,
  NOTICES_HEADER,
  noticeLines,
} from "../../src/domain/cliNotices.js"

const app = Effect.succeed(HttpServerResponse.text("ok"))

describe("autostop notices", () => {
  it.effect("a CLI request takes the pending notices once; a request without the header takes none", () =>
    Effect.gen(function* () {
      const pending = ["autostopped proj/api", "autostopped other/web, 2"]
      const take = Effect.sync(() => pending.splice(0))
      const send = (headers: Record<string, string>) =>
        withNotices(take)(app).pipe(
          Effect.provideService(
            HttpServerRequest.HttpServerRequest,
            HttpServerRequest.fromWeb(new Request("http://localhost/api/daemons", { headers })),
          ),
        )
      const browser = yield* send({})
      expect(browser.headers[NOTICES_HEADER]).toBeUndefined()
      expect(pending).toHaveLength(2)
      const first = yield* send({ [CLI_HEADER]: "1" })
      expect(decodeNotices(first.headers[NOTICES_HEADER])).toEqual([
        "autostopped proj/api",
        "autostopped other/web, 2",
      ])
      const second = yield* send({ [CLI_HEADER]: "1" })
      expect(second.headers[NOTICES_HEADER]).toBeUndefined()
    }),
  )

  it("a cd's answer takes the notices only while its prompt still waits (half a second to spare)", () => {
    const at = 1_000_000_000
    expect(cdAnswerAwaited(at, at + 10_000)).toBe(true)
    expect(cdAnswerAwaited(at, at + (CD_ANSWER_TIMEOUT_MS - 600) * 1000)).toBe(true)
    // the prompt gave up (or is about to), or this is the background report after it
    expect(cdAnswerAwaited(at, at + (CD_ANSWER_TIMEOUT_MS - 500) * 1000)).toBe(false)
    expect(cdAnswerAwaited(at, at + 15_000_000)).toBe(false)
    // a report without a time (an older hook): as before
    expect(cdAnswerAwaited(undefined, at)).toBe(true)
  })

  it("the header is ASCII and prints one stderr line per notice; malformed parts are skipped", () => {
    const value = encodeNotices(["autostopped ü/api", "autostopped a,b"])
    expect(value).toMatch(/^[\x20-\x7e]*$/)
    expect(noticeLines(value)).toBe("supervisor: autostopped ü/api\nsupervisor: autostopped a,b\n")
    expect(noticeLines(undefined)).toBe("")
    expect(decodeNotices(["%E0%A4%A", "ok"])).toEqual(["ok"])
  })
})
