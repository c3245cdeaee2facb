// One attach session (docs/attach.md): this terminal becomes a daemon's terminal over the attach
// WebSocket. `supervisor attach` and the dashboard's `a` both run it; `ws` is loaded on first use.
import * as tls from "node:tls"
import { Either, Schema } from "effect"
import type WebSocket from "ws"
import { ApiProblem } from "../domain/ApiProblem.js"
import { AttachClientMessage, AttachServerMessage } from "../domain/Attach.js"

/** Where the attach WebSocket is: a `ws+unix://` URL on the Unix socket, or `ws://` / `wss://`. */
export interface AttachAddress {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** A CA (PEM) trusted besides the system's, for `wss://` (`--ca`). */
  readonly ca?: string | undefined
}

/** How a session ended. */
export type AttachEnd =
  /** The detach key: the daemon runs on. */
  | { readonly _tag: "Detached" }
  /** The daemon's run ended. */
  | { readonly _tag: "Exited"; readonly code: number | null; readonly signal: string | null }
  /** The supervisor refused before the upgrade (unknown daemon, not running, no terminal). */
  | { readonly _tag: "Refused"; readonly status: number; readonly message: string }
  /** The connection failed or was closed without an exit. */
  | { readonly _tag: "Lost"; readonly message: string }
  /** This process got a signal (SIGTERM, SIGHUP, ...): it detached first. */
  | { readonly _tag: "Signalled"; readonly signal: NodeJS.Signals }

export interface AttachOptions {
  readonly address: AttachAddress
  /** The byte that detaches (0x1d for Ctrl-]). */
  readonly detachKey: number
  readonly input: NodeJS.ReadStream
  readonly output: NodeJS.WriteStream
  /** Called once the supervisor said the session is open, before any output. */
  readonly onAttached?: (pid: number) => void
}

/** The signals that end a session (the terminal is restored first); Ctrl-C is a key in raw mode. */
const SIGNALS: ReadonlyArray<NodeJS.Signals> = ["SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT"]

const decodeMessage = Schema.decodeUnknownEither(Schema.parseJson(AttachServerMessage))
const decodeRefusal = Schema.decodeUnknownEither(Schema.parseJson(ApiProblem))
const encodeClient = Schema.encodeSync(Schema.parseJson(AttachClientMessage))

/** The address with the window's size as the `rows` and `cols` of its query. */
const withSize = (url: string, output: NodeJS.WriteStream): string => {
  if (output.isTTY !== true || !output.rows || !output.columns) return url
  return `${url}${url.includes("?") ? "&" : "?"}rows=${output.rows}&cols=${output.columns}`
}

/**
 * What a program may have turned on in the terminal and not off when the session ends under it:
 * colours, a hidden cursor, application cursor keys and keypad, bracketed paste, mouse reports.
 */
const RESET_MODES =
  "\u001b[0m\u001b[?25h\u001b[?1l\u001b>\u001b[?2004l\u001b[?1000l\u001b[?1002l\u001b[?1003l\u001b[?1006l"

const dim = (text: string) => `\u001b[2m${text}\u001b[22m`

/** The reason of a refusal: the problem body's message, or the status when it has none. */
const refusalText = (status: number, body: string): string =>
  Either.match(decodeRefusal(body), {
    onLeft: () => `the supervisor refused to attach (HTTP ${status})${body.trim() ? `: ${body.trim()}` : ""}`,
    onRight: (p) => p.message,
  })

/**
 * Runs one session until it ends: raw mode on a terminal, keystrokes to the daemon (the detach key
 * excepted), its output to `output`, the window size on every resize. The terminal is put back as
 * it was on every way out, signals included.
 */
export const attachSession = async (options: AttachOptions): Promise<AttachEnd> => {
  const { WebSocket } = await import("ws")
  const { input, output, address, detachKey } = options
  return new Promise<AttachEnd>((resolve) => {
    let finished = false
    let exited: AttachEnd | undefined
    let detached = false
    const ws: WebSocket = new WebSocket(withSize(address.url, output), {
      headers: { ...address.headers },
      ...(address.ca === undefined ? {} : { ca: [...tls.rootCertificates, address.ca] }),
      perMessageDeflate: false,
    })
    const wasRaw = input.isTTY === true ? input.isRaw : false
    let inputTaken = false

    const send = (data: Buffer | string) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(data)
    }
    const onInput = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk
      const at = bytes.indexOf(detachKey)
      if (at < 0) return send(bytes)
      // what was typed before the key still goes; the rest is dropped with the session
      if (at > 0) send(bytes.subarray(0, at))
      detached = true
      ws.close(1000, "detached")
      // a supervisor that does not answer the close is not waited for
      setTimeout(() => finish({ _tag: "Detached" }), 2000).unref()
    }
    const onResize = () => {
      if (output.rows && output.columns)
        send(encodeClient({ _tag: "Resize", rows: output.rows, cols: output.columns }))
    }
    const restore = () => {
      if (!inputTaken) return
      inputTaken = false
      input.off("data", onInput)
      if (input.isTTY === true) input.setRawMode(wasRaw)
      input.pause()
      if (output.isTTY === true) output.write(RESET_MODES)
    }
    const onSignal = (signal: NodeJS.Signals) => finish({ _tag: "Signalled", signal })
    const signalHandlers = SIGNALS.map((s) => [s, () => onSignal(s)] as const)
    const finish = (end: AttachEnd) => {
      if (finished) return
      finished = true
      restore()
      output.off("resize", onResize)
      process.off("exit", restore)
      for (const [s, h] of signalHandlers) process.off(s, h)
      if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.terminate()
      resolve(end)
    }
    for (const [s, h] of signalHandlers) process.on(s, h)
    process.once("exit", restore)

    ws.on("unexpected-response", (_req, res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const status = res.statusCode ?? 0
        finish({
          _tag: "Refused",
          status,
          message: refusalText(status, Buffer.concat(chunks).toString("utf8")),
        })
      })
      res.on("error", () => finish({ _tag: "Refused", status: res.statusCode ?? 0, message: "" }))
    })
    ws.on("error", (e: NodeJS.ErrnoException) => {
      finish({ _tag: "Lost", message: e.code === undefined ? e.message : `${e.code}: ${e.message}` })
    })
    ws.on("open", () => {
      if (finished) return
      inputTaken = true
      if (input.isTTY === true) input.setRawMode(true)
      input.on("data", onInput)
      input.resume()
      output.on("resize", onResize)
    })
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        // a terminal slower than the daemon holds the socket: the supervisor's bound applies
        if (!output.write(data)) {
          ws.pause()
          output.once("drain", () => ws.resume())
        }
        return
      }
      const message = decodeMessage(data.toString("utf8"))
      // a message of a kind this client does not know is skipped
      if (Either.isLeft(message)) return
      const m = message.right
      if (m._tag === "Attached") options.onAttached?.(m.pid)
      else if (m._tag === "Dropped")
        output.write(
          `\r\n${dim(`[${m.bytes} bytes of output skipped: this terminal fell behind; they are in the log]`)}\r\n`,
        )
      else if (m._tag === "Exited") exited = { _tag: "Exited", code: m.code, signal: m.signal }
    })
    ws.on("close", (code: number, reason: Buffer) => {
      if (exited !== undefined) return finish(exited)
      if (detached) return finish({ _tag: "Detached" })
      const why = reason.toString("utf8")
      finish({
        _tag: "Lost",
        message: `the supervisor closed the session (${code}${why ? `: ${why}` : ""})`,
      })
    })
  })
}
