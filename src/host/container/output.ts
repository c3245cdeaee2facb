// Container mode's output: every daemon's lines on the supervisor's own stdout. The daemons'
// output is stored as always (src/logs); this follows each daemon's log from the start of its
// first run here, as `logs -f` does, and prints what is indexed.
import { Context, Effect, FiberMap, Layer, Stream } from "effect"
import type { ContainerLogFormat } from "../../domain/ContainerLogLine.js"
import { isLogClear, type LogEntry } from "../../domain/LogEntry.js"
import { LogStore, type LogStoreShape } from "../../logs/LogStore.js"
import { makeLabels, renderLine } from "./lines.js"

export interface ContainerOutputShape {
  /**
   * Prints the daemon's lines after those stored now, from now on (once per daemon: a later
   * call while it is followed does nothing).
   */
  readonly watch: (id: string) => Effect.Effect<void>
}

export class ContainerOutput extends Context.Tag("supervisor/ContainerOutput")<
  ContainerOutput,
  ContainerOutputShape
>() {}

/** The printer over `logs`; `write` takes whole lines (process.stdout's write: synchronous on Linux). */
export const makeContainerOutput = (
  logs: LogStoreShape,
  format: ContainerLogFormat,
  write: (text: string) => void,
) =>
  Effect.gen(function* () {
    const fibers = yield* FiberMap.make<string>()
    const labels = makeLabels()
    /** The last entry printed of each daemon followed. */
    const printed = new Map<string, number>()

    const print = (id: string, entries: Iterable<LogEntry>) => {
      let last = printed.get(id) ?? 0
      let text = ""
      for (const e of entries) {
        if (e.id <= last) continue
        text += renderLine(format, labels.of(id), e)
        last = e.id
      }
      printed.set(id, last)
      if (text !== "") write(text)
    }

    const follow = (id: string, afterId: number) =>
      logs.after(id, { afterId }).pipe(
        Stream.runForEachChunk((chunk) =>
          Effect.sync(() => {
            const entries: Array<LogEntry> = []
            for (const item of chunk) if (!isLogClear(item)) entries.push(item)
            print(id, entries)
          }),
        ),
        Effect.ignore,
      )

    // At the end (after every daemon stopped): what was indexed and not printed yet, then stop.
    const rest = (id: string) =>
      Effect.gen(function* () {
        const upTo = (yield* logs.stats(id)).lastId
        const after = printed.get(id) ?? 0
        if (upTo <= after) return
        yield* logs
          .range(id, { after, upTo })
          .pipe(Stream.runForEach((batch) => Effect.sync(() => print(id, batch))))
      }).pipe(Effect.ignore)
    yield* Effect.addFinalizer(() =>
      FiberMap.clear(fibers).pipe(
        Effect.zipRight(Effect.forEach([...printed.keys()], rest, { discard: true })),
      ),
    )

    const service: ContainerOutputShape = {
      watch: (id) =>
        Effect.gen(function* () {
          if (printed.has(id) && (yield* FiberMap.has(fibers, id))) return
          const afterId = yield* logs.stats(id).pipe(
            Effect.map((s) => s.lastId),
            Effect.orElseSucceed(() => 0),
          )
          labels.add(id)
          // (again after a `clean`, which ended the follower: its ids start over)
          printed.set(id, afterId)
          yield* FiberMap.run(fibers, id, follow(id, afterId), { onlyIfMissing: true })
        }),
    }
    return service
  })

/**
 * Container mode's LogStore: the store of `inner`, whose `prepare` (called before each run's
 * spawn) has the daemon's lines printed from that run on, and the printer itself.
 */
export const containerOutputLayers = <R>(
  inner: Layer.Layer<LogStore, never, R>,
  format: ContainerLogFormat,
  write: (text: string) => void,
): Layer.Layer<LogStore | ContainerOutput, never, R> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const logs = yield* LogStore
      const output = yield* makeContainerOutput(logs, format, write)
      const decorated: LogStoreShape = {
        ...logs,
        prepare: (id) => Effect.zipRight(output.watch(id), logs.prepare(id)),
      }
      return Context.make(LogStore, decorated).pipe(Context.add(ContainerOutput, output))
    }),
  ).pipe(Layer.provide(inner))
