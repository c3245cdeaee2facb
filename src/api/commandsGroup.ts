import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { NamespaceEntry } from "../domain/ApiNamespaces.js"
import {
  CleanResult,
  InputResult,
  LogLines,
  ScaleResult,
  StartOutcomes,
  StopResults,
  ToggleResults,
  WaitResult,
} from "../domain/CliOutput.js"
import { Command, DependentRestarts } from "../domain/Command.js"
import {
  ConfigUnusable,
  DaemonNotFound,
  InputRefused,
  NothingSelected,
  UnknownDaemon,
  UsageError,
} from "../domain/CommandErrors.js"
import { Explanation } from "../domain/Explain.js"
import { SettingList } from "../domain/SettingsOutput.js"

/** A body that is no command: not JSON, an unknown `_tag`, or wrong fields (the message says which). */
export class BadCommand extends Schema.TaggedError<BadCommand>()(
  "BadCommand",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 }),
) {}

/** The answer of a command without `wait: "events"`: its request's success (docs/api.md). */
export const CommandAnswer = Schema.Union(
  StartOutcomes,
  StopResults,
  ToggleResults,
  CleanResult,
  WaitResult,
  Schema.Struct({ killed: Schema.Boolean }),
  ScaleResult,
  LogLines,
  SettingList,
  Schema.Array(NamespaceEntry),
  DependentRestarts,
  InputResult,
  Explanation,
  // Resize
  Schema.Struct({ id: Schema.String }),
).annotations({
  identifier: "CommandAnswer",
  description:
    'the command\'s success, encoded by its request class; with `wait: "events"` (Start, Restart, Run) an ndjson stream of StartEvent instead; a Tail an ndjson stream of LogStreamItem, a Logs with `stream` one of LogEntry',
})

/**
 * The command protocol (src/domain/Command.ts): one endpoint for every operation, on both
 * listeners. The seed's routes (`/api/daemons/{id}/start`, ...) are aliases that build the same
 * commands.
 */
export class CommandsGroup extends HttpApiGroup.make("commands")
  .add(
    HttpApiEndpoint.post("handle", "/commands")
      .setPayload(Command)
      .addSuccess(CommandAnswer)
      .addError(BadCommand, { status: 400 })
      .addError(UsageError, { status: 400 })
      .addError(UnknownDaemon, { status: 404 })
      .addError(DaemonNotFound, { status: 404 })
      .addError(NothingSelected, { status: 409 })
      .addError(InputRefused, { status: 409 })
      .addError(ConfigUnusable, { status: 422 }),
  )
  .prefix("/api") {}
