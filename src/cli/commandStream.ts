// A command of the protocol (src/domain/Command.ts) whose answer is a stream (a tail, a streamed
// logs query), sent to `POST /api/commands` on the CLI's connection (the socket, or a URL):
// its ndjson items as they arrive, or its typed failure (CommandError) when it was refused.
import * as nodePath from "node:path"
import * as Ndjson from "@effect/platform/Ndjson"
import { Data, Effect, Either, Schema, Stream } from "effect"
import type { Command } from "../domain/Command.js"
import { CommandError } from "../domain/CommandErrors.js"
import { definedEnv } from "../quick/request.js"
import type { SupervisorClient } from "./client.js"
import { requestOf } from "./commandClient.js"

/** An answer that is neither the stream nor a CommandError (a 400 BadCommand, a 500). */
export class CommandRefused extends Data.TaggedError("CommandRefused")<{ readonly message: string }> {}

const decodeError = Schema.decodeUnknownEither(CommandError)

/** The ndjson items of a streamed command's answer, or its failure. */
export const commandItems = (
  client: SupervisorClient["Type"],
  command: Command,
): Stream.Stream<unknown, CommandError | CommandRefused> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const response = yield* client.http
        .execute(requestOf(command))
        .pipe(Effect.mapError((e) => new CommandRefused({ message: e.message })))
      if (response.status !== 200) {
        const body = yield* response.json.pipe(Effect.orElseSucceed(() => undefined))
        const typed = decodeError(body)
        if (Either.isRight(typed)) return yield* Effect.fail(typed.right)
        const message =
          typeof body === "object" && body !== null && "message" in body
            ? String(body.message)
            : `the supervisor answered ${command._tag} with HTTP ${response.status}`
        return yield* new CommandRefused({ message })
      }
      return response.stream.pipe(
        Stream.mapError((e) => new CommandRefused({ message: e.message })),
        Stream.decodeText(),
        Stream.pipeThroughChannel(Ndjson.unpackString()),
        Stream.mapError((e) =>
          e instanceof CommandRefused ? e : new CommandRefused({ message: String(e) }),
        ),
      )
    }),
  )

/** `from` of a command sent from here: this directory, with this environment. */
export const hereFrom = () => ({
  _tag: "Directory" as const,
  cwd: nodePath.resolve(process.cwd()),
  env: definedEnv(),
  strict: false,
})
