import * as http from "node:http"
import type * as https from "node:https"
import * as net from "node:net"
import { Duration, Effect } from "effect"
import { formatHumanDuration } from "../../domain/HumanDuration.js"
import type { ProbeAnswer, StartAttempt } from "./answer.js"

/** A status that means ready: any 2xx, or one listed in `accepted`. */
export const isReadyStatus = (status: number, accepted: ReadonlyArray<number>): boolean =>
  (status >= 200 && status < 300) || accepted.includes(status)

/** The status of an HTTP answer's status line (`HTTP/1.1 200 OK`), once it has come whole. */
export const statusOfHead = (head: string): number | "partial" | "invalid" => {
  const end = head.indexOf("\r\n")
  if (end === -1) return head.length < 8192 ? "partial" : "invalid"
  const m = /^HTTP\/\d(?:\.\d)? (\d{3})(?: |$)/.exec(head.slice(0, end))
  return m === null ? "invalid" : Number(m[1])
}

/** Where every plain-HTTP answer is read into: it is decoded at once, before the next read. */
const readBuffer = Buffer.allocUnsafe(8192)

/**
 * A plain-HTTP GET on a socket of its own: the request line, `Host`, `Connection: close`, and
 * the answer's status line read (the rest is not). Half the CPU of `http.get` for what a check
 * needs (bench/automation.mjs --health, docs/benchmarks.md); https and URLs with credentials
 * go through `http.get`/`https.get`. The request is written at once: the socket sends it when
 * connected. The answer is read into one shared buffer (`onread`) rather than a new buffer and
 * a stream's events per read.
 */
const plainGet = (target: URL, request: string, answer: (status: number | string) => void): (() => void) => {
  let head = ""
  const socket = net.connect({
    host: target.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: target.port === "" ? 80 : Number(target.port),
    onread: {
      buffer: readBuffer,
      callback: (n: number) => {
        head += readBuffer.toString("latin1", 0, n)
        const status = statusOfHead(head)
        if (status === "partial") return true
        answer(status === "invalid" ? "not an HTTP answer" : status)
        return false
      },
    },
  })
  socket.write(request)
  socket.on("error", (e) => answer(e.message))
  socket.on("close", () => answer("the connection closed without an answer"))
  return () => socket.destroy()
}

/**
 * GET through node's http or https client. The https module (and TLS with it) is loaded at the
 * first https check: a supervisor without one does not hold it.
 */
const clientGet = (
  target: URL,
  _request: string,
  answer: (status: number | string) => void,
): (() => void) => {
  let req: http.ClientRequest | undefined
  let cancelled = false
  const send = (get: typeof https.get) => {
    if (cancelled) return
    req = get(
      target,
      { agent: false, headers: { "user-agent": "supervisor-readiness" }, rejectUnauthorized: false },
      (res) => {
        res.resume()
        answer(res.statusCode ?? 0)
      },
    )
    req.on("error", (e) => answer(e.message))
  }
  if (target.protocol === "https:")
    import("node:https").then(
      (https) => send(https.get),
      (e: unknown) => answer(String(e)),
    )
  else send(http.get)
  return () => {
    cancelled = true
    req?.destroy()
  }
}

/** What every attempt of one check sends where, worked out once: its URL read, its request written. */
const httpTarget = (url: string) => {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return `${JSON.stringify(url)} is not a URL`
  }
  if (target.protocol !== "http:" && target.protocol !== "https:")
    return `${JSON.stringify(url)} is not an http:// or https:// URL`
  const plain = target.protocol === "http:" && target.username === ""
  return {
    target,
    get: plain ? plainGet : clientGet,
    request: plain
      ? `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUser-Agent: supervisor-readiness\r\nConnection: close\r\n\r\n`
      : "",
  }
}

/**
 * One attempt of an http check: GET `url`; it passes when it answers a ready status. A refused
 * connection, any other error, or no answer within `attemptTimeout` fails, and says so.
 * Certificates are not verified: only the status matters (self-signed dev servers).
 *
 * Started by a callback rather than as an effect: health checks run it every few seconds for
 * every checked daemon without a fiber (docs/benchmarks.md, health checks). The deadline is the
 * request's own timer.
 */
export const startHttpAnswer = (
  url: string,
  accepted: ReadonlyArray<number>,
  attemptTimeout: Duration.DurationInput,
): StartAttempt => {
  // once per check, not per attempt: a health check runs the same attempt every few seconds
  const to = httpTarget(url)
  const millis = Duration.toMillis(Duration.decode(attemptTimeout))
  if (typeof to === "string")
    return (done) => {
      done({ ok: false, output: to })
      return () => {}
    }
  const { target, get, request } = to
  return (done) => {
    let finished = false
    let destroy: (() => void) | undefined
    const finish = (ok: boolean, output: string) => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      destroy?.()
      done({ ok, output })
    }
    const timer = setTimeout(
      () => finish(false, `GET ${url}: no answer within ${formatHumanDuration(millis)}`),
      millis,
    )
    destroy = get(target, request, (status) =>
      typeof status === "number"
        ? finish(isReadyStatus(status, accepted), `GET ${url}: HTTP ${status}`)
        : finish(false, `GET ${url}: ${status}`),
    )
    if (finished) destroy()
    return () => {
      finished = true
      clearTimeout(timer)
      destroy?.()
    }
  }
}

/** `startHttpAnswer` as an effect: interrupting it cancels the request. */
export const httpAnswer = (
  url: string,
  accepted: ReadonlyArray<number>,
  attemptTimeout: Duration.DurationInput,
): Effect.Effect<ProbeAnswer> => {
  const start = startHttpAnswer(url, accepted, attemptTimeout)
  return Effect.async<ProbeAnswer>((resume) => {
    const cancel = start((answer) => resume(Effect.succeed(answer)))
    return Effect.sync(cancel)
  })
}

/** One `ready_http` attempt: true when it answers a ready status. */
export const probeHttp = (
  url: string,
  accepted: ReadonlyArray<number>,
  attemptTimeout: Duration.DurationInput,
): Effect.Effect<boolean> => Effect.map(httpAnswer(url, accepted, attemptTimeout), (a) => a.ok)
