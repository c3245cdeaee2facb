import { Command } from "@effect/cli"
import { eventsOptions } from "./args/events.js"
import { lazy } from "./lazy.js"

/** `supervisor events`: follows the supervisor's event stream (docs/events.md). */
export const eventsCommand = Command.make("events", eventsOptions, (o) =>
  lazy(
    () => import("./actions/events.js"),
    (m) => m.events(o),
  ),
).pipe(
  Command.withDescription(
    "follow the supervisor's events: state changes, readiness, retries, automation, configuration",
  ),
)
