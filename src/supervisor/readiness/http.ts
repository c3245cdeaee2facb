import * as http from "node:http"
import * as https from "node:https"
import { Duration, Effect } from "effect"
import { formatHumanDuration } from "../../domain/HumanDuration.js"
import type { ProbeAnswer } from "./answer.js"

/** A status that means ready: any 2xx, or one listed in `accepted`. */
export const isReadyStatus = (status: number, accepted: ReadonlyArray<number>): boolean =>
  (status >= 200 && status < 300) || accepted.includes(status)

/**
 * One attempt of an http check: GET `url`; it passes when it answers a ready status. A refused
 * connection, any other error, or no answer within `attemptTimeout` fails, and says so.
 * Certificates are not verified: only the status matters (self-signed dev servers).
 *
 * The deadline is the request's own timer rather than a fiber racing it: health checks run
 * this every few seconds for every checked daemon, and the race cost more than the request
 * (bench/automation.mjs --health, docs/benchmarks.md).
 */
export const httpAnswer = (
  url: string,
  accepted: ReadonlyArray<number>,
  attemptTimeout: Duration.DurationInput,
): Effect.Effect<ProbeAnswer> =>
  Effect.async<ProbeAnswer>((resume) => {
    let done = false
    let req: http.ClientRequest | undefined
    let timer: NodeJS.Timeout | undefined
    const finish = (ok: boolean, output: string) => {
      if (done) return
      done = true
      if (timer !== undefined) clearTimeout(timer)
      req?.destroy()
      resume(Effect.succeed({ ok, output }))
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      finish(false, `${JSON.stringify(url)} is not a URL`)
      return
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      finish(false, `${JSON.stringify(url)} is not an http:// or https:// URL`)
      return
    }
    const millis = Duration.toMillis(Duration.decode(attemptTimeout))
    timer = setTimeout(
      () => finish(false, `GET ${url}: no answer within ${formatHumanDuration(millis)}`),
      millis,
    )
    const get = target.protocol === "https:" ? https.get : http.get
    req = get(
      target,
      { agent: false, headers: { "user-agent": "supervisor-readiness" }, rejectUnauthorized: false },
      (res) => {
        const status = res.statusCode ?? 0
        res.resume()
        finish(isReadyStatus(status, accepted), `GET ${url}: HTTP ${status}`)
      },
    )
    req.on("error", (e) => finish(false, `GET ${url}: ${e.message}`))
    return Effect.sync(() => {
      done = true
      clearTimeout(timer)
      req?.destroy()
    })
  })

/** One `ready_http` attempt: true when it answers a ready status. */
export const probeHttp = (
  url: string,
  accepted: ReadonlyArray<number>,
  attemptTimeout: Duration.DurationInput,
): Effect.Effect<boolean> => Effect.map(httpAnswer(url, accepted, attemptTimeout), (a) => a.ok)
