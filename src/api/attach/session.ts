// One attached client (docs/attach.md): the recent screen, then the daemon's output as it comes;
// its keystrokes and window sizes become Input and Resize commands, in the order they came; the
// end of the daemon's run ends the session with the exit status.
import { Deferred, Effect, Option, Runtime, Schema, Stream } from "effect"
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

/** The run goes on: starting, running or unhealthy (a stop under way counts as its end). */
const goesOn = (to: StatusType) => isActiveStatus(to) && to !== "stopping"

export const runSession = (deps: SessionDeps, ws: WebSocket, t: SessionTarget) =>
  Effect.scoped(
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<never>()
      const say = (m: AttachServerMessage) => {
        if (ws.readyState === ws.OPEN) ws.send(encodeMessage(m))
      }
      // subscribed before anything is sent: the end of the run cannot slip in between
      const changes = yield* deps.events.open({ ids: [t.id] })
      const closed = yield* Deferred.make<void>()
      ws.on("close", () => Deferred.unsafeDone(closed, Effect.void))
      // keystrokes and sizes, one after the other in the order they came
      let pending: Promise<unknown> = Promise.resolve()
      const perform = (command: Input | Resize) => {
        pending = pending.then(() => Runtime.runPromise(runtime)(Effect.ignore(deps.control.handle(command))))
      }
      ws.on("message", (data, isBinary) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)
        if (isBinary) {
          perform(new Input({ id: t.id, data: new Uint8Array(bytes), enter: false, reason: "api" }))
          return
        }
        const m = decodeMessage(bytes.toString("utf8"))
        if (m._tag === "Left") ws.close(1003, 'expected {"_tag":"Resize","rows":R,"cols":C}')
        else perform(new Resize({ id: t.id, rows: m.right.rows, cols: m.right.cols, reason: "api" }))
      })
      if (t.rows !== undefined && t.cols !== undefined)
        perform(new Resize({ id: t.id, rows: t.rows, cols: t.cols, reason: "api" }))
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
      if (Option.isSome(end)) {
        stop()
        say({ _tag: "Exited", ...end.value })
        ws.close(1000)
      }
    }),
  )
