// The API servers' response class: a streamed write (an event, a log line, a progress line)
// leaves at once. Node corks the socket at each `write` and uncorks it on `process.nextTick`,
// which runs only once the microtask queue is empty; the supervisor's fibers run in microtasks,
// so during a burst of work a written event waited in the socket for all of it
// (docs/benchmarks.md, the event stream). Its `Date` header is made without ICU (httpDate.ts).
import { type IncomingMessage, ServerResponse } from "node:http"
import { httpDate } from "./httpDate.js"

export class PromptResponse extends ServerResponse {
  constructor(req: IncomingMessage) {
    super(req)
    this.setHeader("Date", httpDate())
  }

  // biome-ignore lint/suspicious/noExplicitAny: the arguments of Node's overloaded `write`, passed on unchanged
  override write(...args: Array<any>): boolean {
    const socket = this.socket
    const corked = socket?.writableCorked ?? 0
    const ok = (super.write as (...a: Array<unknown>) => boolean)(...args)
    // only the cork this write added: the chunk's framing and the chunk go out in one writev
    if (socket !== null && socket.writableCorked > corked) socket.uncork()
    return ok
  }
}
