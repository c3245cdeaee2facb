import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { processStartTime } from "../automation/presence/identity.js"
import { type Occupant, Presence } from "../automation/presence/Presence.js"
import { cdAnswerAwaited, monotonicMicros } from "../domain/cliNotices.js"
import type { PresenceEntry } from "../domain/Presence.js"
import { Api } from "./Api.js"

const entry = (o: Occupant): PresenceEntry => ({
  kind: o.kind,
  pid: o.pid,
  directory: o.directory,
  since: new Date(o.since).toISOString(),
  alive: processStartTime(o.pid) === o.startTime,
})

export const PresenceLive = HttpApiBuilder.group(Api, "presence", (h) =>
  Effect.gen(function* () {
    const presence = yield* Presence
    return h
      .handle("shellCd", ({ payload }) =>
        // the prompt waits for this answer: the moves (and what they start) run on
        presence.shellCd(payload.pid, payload.directory, payload.at).pipe(
          Effect.catchAll(() => Effect.void),
          Effect.forkDaemon,
          // a prompt that gave up waiting (or the background report after it) prints nothing:
          // the notices stay for the next command
          Effect.zipRight(
            Effect.suspend(() =>
              cdAnswerAwaited(payload.at, monotonicMicros()) ? presence.takeNotices : Effect.succeed([]),
            ),
          ),
          Effect.map((notices) => ({ notices: [...notices] })),
        ),
      )
      .handle("presence", () => Effect.map(presence.list, (all) => all.map(entry)))
      .handle("enter", ({ payload }) => Effect.map(presence.enter(payload.pid, payload.directory), entry))
      .handle("leave", ({ payload }) =>
        Effect.map(presence.leave(payload.pid, payload.directory), (left) => ({ left: left.map(entry) })),
      )
  }),
)
