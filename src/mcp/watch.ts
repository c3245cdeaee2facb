import { Effect, Runtime, Schedule, Stream } from "effect"
import type { Connect } from "./connection.js"
import { McpSupervisor } from "./connection.js"
import type { Watcher } from "./definition.js"
import { eventItems, openEvents } from "./waitReady.js"

/**
 * Follows `GET /api/events` and calls `onDaemonChanged` for each daemon state change. It never
 * starts the supervisor: while none answers (or after it stopped), it tries again each second.
 */
export const watchDaemons = <R>(
  runtime: Runtime.Runtime<R>,
  connect: Connect,
  onDaemonChanged: (id: string) => void,
): Watcher => {
  let settle: () => void = () => {}
  const opened = new Promise<void>((resolve) => {
    settle = resolve
  })
  const follow = Effect.gen(function* () {
    const { http } = yield* McpSupervisor
    const response = yield* openEvents(http, { ids: [] }).pipe(Effect.ensuring(Effect.sync(() => settle())))
    yield* eventItems(response).pipe(
      Stream.runForEach((e) =>
        Effect.sync(() => {
          if (e._tag === "DaemonStateChanged") onDaemonChanged(e.id)
        }),
      ),
    )
  }).pipe(
    Effect.provide(connect("setting-off")),
    Effect.ensuring(Effect.sync(() => settle())),
    Effect.ignore,
    Effect.repeat(Schedule.spaced("1 second")),
  )
  const fiber = Runtime.runFork(runtime)(follow)
  return { opened, stop: () => fiber.unsafeInterruptAsFork(fiber.id()) }
}
