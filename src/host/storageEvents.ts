import { Effect, Layer, Queue } from "effect"
import type { EventBody } from "../domain/SupervisorEvent.js"
import { EventLog } from "../events/EventLog.js"
import { type StorageChange, StorageHealth } from "../state/StorageHealth.js"
import { recoveredText } from "../state/storageFaults.js"

/** A change of the storage's health as the event stream says it (docs/events.md). */
export const storageEvent = (c: StorageChange): EventBody => {
  const { area, file, code } = c.problem
  return c._tag === "Failing"
    ? { _tag: "StorageProblem", area, file, operation: c.operation, code, message: c.problem.message }
    : {
        _tag: "StorageRecovered",
        area,
        file,
        code,
        failed_writes: c.problem.failed_writes,
        since: c.problem.since,
        message: recoveredText(c.problem, c.at),
      }
}

/** Publishes every change of the storage's health on the event log, for as long as its scope. */
export const StorageEventsLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const health = yield* StorageHealth
    const events = yield* EventLog
    const changes = yield* health.subscribe
    yield* Queue.take(changes).pipe(
      Effect.flatMap((c) => events.publish(storageEvent(c))),
      Effect.forever,
      Effect.forkScoped,
    )
  }),
)
