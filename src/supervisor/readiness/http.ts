import * as http from "node:http"
import * as https from "node:https"
import { type Duration, Effect } from "effect"

/** A status that means ready: any 2xx, or one listed in `accepted`. */
export const isReadyStatus = (status: number, accepted: ReadonlyArray<number>): boolean =>
  (status >= 200 && status < 300) || accepted.includes(status)

/**
 * One `ready_http` attempt: GET `url`; true when it answers a ready status. A refused
 * connection, any other error, or no answer within `attemptTimeout` is "not yet".
 * Certificates are not verified: only the status matters (self-signed dev servers).
 */
export const probeHttp = (
  url: string,
  accepted: ReadonlyArray<number>,
  attemptTimeout: Duration.DurationInput,
): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume, signal) => {
    let done = false
    const finish = (ready: boolean) => {
      if (done) return
      done = true
      resume(Effect.succeed(ready))
    }
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return finish(false)
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") return finish(false)
    const get = target.protocol === "https:" ? https.get : http.get
    const req = get(
      target,
      { agent: false, signal, headers: { "user-agent": "supervisor-readiness" }, rejectUnauthorized: false },
      (res) => {
        const ready = isReadyStatus(res.statusCode ?? 0, accepted)
        res.resume()
        req.destroy()
        finish(ready)
      },
    )
    req.on("error", () => finish(false))
  }).pipe(Effect.timeoutTo({ duration: attemptTimeout, onTimeout: () => false, onSuccess: (ok) => ok }))
