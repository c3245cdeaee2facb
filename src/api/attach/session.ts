// One attached client (docs/attach.md): the recent screen, then the daemon's output as it comes;
// its keystrokes and window sizes become Input and Resize commands, in the order they came; the
// end of the daemon's run ends the session with the exit status.
import { Deferred, Effect, Fiber, Option, Queue, Schema, Stream } from "effect"
import type { WebSocket } from "ws"
import type { ControlShape } from "../../control/Control.js"
import {
  AttachClientMessage,
  type AttachServerMessage,
  AttachServerMessage as ServerMessage,
} from "../../domain/Attach.js"
import { Input, Resize } from "../../domain/Command.js"
import { isActiveStatus, type StatusType } from "../../domain/DaemonStatus.js"
import type { EventLogShape } from "../../events/EventLog.js"
import type { SupervisorShape } from "../../supervisor/Supervisor.js"
import { followOutput, recentScreen } from "./output.js"

export interface SessionDeps {
  readonly control: ControlShape
  readonly sup: Pick<SupervisorShape, "get">
  readonly events: EventLogShape
}

export interface SessionTarget {
  readonly id: string
  readonly pid: number
  readonly rawPath: string
  readonly rows: number | undefined
  readonly cols: number | undefined
}

const encodeMessage = Schema.encodeSync(Schema.parseJson(ServerMessage))
const decodeMessage = Schema.decodeUnknownEither(Schema.parseJson(AttachClientMessage))

/** What a client sent: bytes it typed, or its window's size. */
type Typed = Buffer | { readonly _tag: "Resize"; readonly rows: number; readonly cols: number }

/** One item, waiting for it, and whatever else has come meanwhile; `null` ends the session. */
const takeSome = (queue: Queue.Queue<Typed | null>) =>
  Effect.zipWith(Queue.take(queue), Queue.takeAll(queue), (first, rest) => [first, ...rest])

/**
 * The commands for a batch of what a client sent, in its order, up to the end (`null`): bytes
 * typed one after the other become one Input (one write to the input pipe). Built from checked
 * values, so not checked again.
 */
const commandsOf = (id: string, batch: ReadonlyArray<Typed | null>): Array<Input | Resize> => {
  const out: Array<Input | Resize> = []
  let typed: Array<Buffer> = []
  const flush = () => {
    if (typed.length === 0) return
    const data = new Uint8Array(Buffer.concat(typed))
    out.push(new Input({ id, data, enter: false, reason: "api" }, true))
    typed = []
  }
  for (const item of batch)
    if (item === null) break
    else if (Buffer.isBuffer(item)) typed.push(item)
    else {
      flush()
      out.push(new Resize({ id, rows: item.rows, cols: item.cols, reason: "api" }, true))
    }
  flush()
  return out
}

/** The run goes on: starting, running or unhealthy (a stop under way counts as its end). */
const goesOn = (to: StatusType) => isActiveStatus(to) && to !== "stopping"

export const runSession = (deps: SessionDeps, ws: WebSocket, t: SessionTarget) =>
  Effect.scoped(
    Effect.gen(function* () {
      const say = (m: AttachServerMessage) => {
        if (ws.readyState === ws.OPEN) ws.send(encodeMessage(m))
      }
      // subscribed before anything is sent: the end of the run cannot slip in between
      const changes = yield* deps.events.open({ ids: [t.id] })
      const closed = yield* Deferred.make<void>()
      ws.on("close", () => Deferred.unsafeDone(closed, Effect.void))
      // keystrokes and sizes, handled one after the other in the order they came by one fiber,
      // which carries out what came before the end of the session too
      const commands = yield* Queue.unbounded<Typed | null>()
      const typing = yield* Effect.forkScoped(
        Effect.gen(function* () {
          for (;;) {
            const batch = yield* takeSome(commands)
            for (const c of commandsOf(t.id, batch)) yield* Effect.ignore(deps.control.handle(c))
            if (batch.includes(null)) return
          }
        }),
      )
      ws.on("message", (data, isBinary) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
        if (isBinary) {
          Queue.unsafeOffer(commands, bytes)
          return
        }
        const m = decodeMessage(bytes.toString("utf8"))
        if (m._tag === "Left") ws.close(1003, 'expected {"_tag":"Resize","rows":R,"cols":C}')
        else Queue.unsafeOffer(commands, m.right)
      })
      if (t.rows !== undefined && t.cols !== undefined)
        Queue.unsafeOffer(commands, { _tag: "Resize", rows: t.rows, cols: t.cols })
      say({ _tag: "Attached", id: t.id, pid: t.pid })
      const screen = recentScreen(t.rawPath, t.rows ?? 24)
      if (screen.bytes.length > 0) ws.send(screen.bytes, { binary: true })
      const stop = followOutput(t.rawPath, screen.end, {
        send: (bytes) => {
          if (ws.readyState === ws.OPEN) ws.send(bytes, { binary: true })
        },
        buffered: () => ws.bufferedAmount,
        dropped: (bytes) => say({ _tag: "Dropped", bytes }),
      })
      yield* Effect.addFinalizer(() => Effect.sync(stop))
      const ended = changes.pipe(
        Stream.filter(
          (item) =>
            item._tag === "DaemonStateChanged" &&
            item.id === t.id &&
            (item.pid !== t.pid || !goesOn(item.to)),
        ),
        Stream.runHead,
      )
      // the run may have ended before the subscription
      const now = yield* Effect.option(deps.sup.get(t.id))
      const gone = Option.isNone(now) || now.value.pid !== t.pid
      const end = gone
        ? Option.some({ code: null, signal: null })
        : yield* Effect.raceFirst(
            Effect.as(Deferred.await(closed), Option.none()),
            Effect.map(ended, (item) =>
              Option.flatMap(item, (e) =>
                e._tag === "DaemonStateChanged"
                  ? Option.some({ code: e.exit_code, signal: e.signal })
                  : Option.none(),
              ),
            ),
          )
      Queue.unsafeOffer(commands, null)
      yield* Fiber.await(typing)
      if (Option.isSome(end)) {
        stop()
        say({ _tag: "Exited", ...end.value })
        ws.close(1000)
      }
    }),
  )
