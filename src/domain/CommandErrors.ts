// The typed failures of a command (src/domain/Command.ts): what a front-end is told when a command
// cannot be done, encoded on the wire as `{ "_tag": ..., "message": ... }`.
import { Schema } from "effect"

/** A daemon, group or slug that does not resolve, or is ambiguous; the message lists candidates. */
export class UnknownDaemon extends Schema.TaggedError<UnknownDaemon>()("UnknownDaemon", {
  message: Schema.String,
}) {}

/** A selection that cannot be read (no IDs at all, conflicting flags): the CLI exits 2. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String,
}) {}

/** A daemon ID the supervisor does not know (the API answers it with a 404). */
export class DaemonNotFound extends Schema.TaggedError<DaemonNotFound>()("DaemonNotFound", {
  id: Schema.String,
  message: Schema.String,
}) {}

export const daemonNotFound = (id: string) =>
  new DaemonNotFound({ id, message: `no daemon ${JSON.stringify(id)} is known to the supervisor` })

/**
 * The selection is empty (`start --all` in a directory without daemons, `restart --local` with
 * none running): nothing was done. `files` names where the selection looked.
 */
export class NothingSelected extends Schema.TaggedError<NothingSelected>()("NothingSelected", {
  message: Schema.String,
}) {}

/**
 * The configuration seen from the command's directory cannot be used: it has errors, or (when the
 * command asked for a strict load) warnings that the sender must show first.
 */
export class ConfigUnusable extends Schema.TaggedError<ConfigUnusable>()("ConfigUnusable", {
  message: Schema.String,
  /** True when the load succeeded with warnings only (a strict command refuses them). */
  warnings_only: Schema.Boolean,
}) {}

/**
 * Input cannot reach the daemon (docs/attach.md): it is not running, reads no input (neither
 * `pty = true` nor `stdin = "pipe"`), or does not read what it was sent.
 */
export class InputRefused extends Schema.TaggedError<InputRefused>()("InputRefused", {
  id: Schema.String,
  message: Schema.String,
}) {}

/** Every failure a command can end with. */
export const CommandError = Schema.Union(
  UnknownDaemon,
  UsageError,
  DaemonNotFound,
  NothingSelected,
  ConfigUnusable,
  InputRefused,
).annotations({ identifier: "CommandError" })
export type CommandError = typeof CommandError.Type

/** The HTTP status of each failure on `POST /api/commands`. */
export const commandErrorStatus = (e: CommandError): number => {
  switch (e._tag) {
    case "UsageError":
      return 400
    case "UnknownDaemon":
    case "DaemonNotFound":
      return 404
    case "NothingSelected":
    case "InputRefused":
      return 409
    case "ConfigUnusable":
      return 422
  }
}
