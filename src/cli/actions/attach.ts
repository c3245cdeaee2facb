// `supervisor attach ID` (docs/attach.md): resolves the ID as every command does, then runs the
// attach session on this terminal and reports how it ended in one line on stderr.
import { Console, Data, Effect, Either } from "effect"
import { resolveId, UsageError } from "../../control/selection.js"
import { detachKeyText, parseDetachKey } from "../../domain/detachKey.js"
import { attachEndReport } from "../../terminal/attachEnd.js"
import { attachSession } from "../../terminal/attachSession.js"
import type { AttachOptions } from "../args/attach.js"
import { attachAddress } from "../attachAddress.js"
import { SupervisorClient } from "../client.js"
import { dim, exitWith, red } from "../output.js"
import { withSupervisor } from "../session.js"
import { withSlugProjects } from "../slugIds.js"

/** A daemon that cannot be attached to, said before any connection. */
class NotAttachable extends Data.TaggedError("NotAttachable")<{ readonly message: string }> {}

export const attach = (o: AttachOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const key = parseDetachKey(o.detachKey)
      if (Either.isLeft(key)) return yield* new UsageError({ message: key.left })
      const c = yield* SupervisorClient
      // a slug typed as the ID brings its project's daemons
      const here = yield* withSlugProjects(config, [o.id])
      const known = yield* c.api.daemons.list({ urlParams: {} }).pipe(Effect.orDie)
      const id = yield* resolveId(o.id, here, known)
      const instances = known.filter((x) => x.instance?.daemon === id)
      if (instances.length > 0)
        return yield* new UsageError({
          message: `${id} runs as instances (${instances.map((x) => x.id.name).join(", ")}): attach to one, such as \`supervisor attach ${instances[0]!.id.name}\``,
        })
      // a configured daemon that never ran is listed, but the supervisor has no run of it to attach to
      const entry = known.find((x) => x.id.qualified === id)
      if (entry !== undefined && entry.pid === null)
        return yield* new NotAttachable({
          message: `daemon ${id} is not running (${entry.status.type}); start it with: supervisor start ${id}`,
        })
      const address = yield* attachAddress(id)
      // The session and its report are not interrupted: a SIGTERM or SIGINT (which the runtime
      // answers by interrupting the command) ends the session, which puts the terminal back first.
      yield* Effect.uninterruptible(
        Effect.gen(function* () {
          const end = yield* Effect.promise(() =>
            attachSession({
              address,
              detachKey: key.right,
              input: process.stdin,
              output: process.stdout,
              onAttached: () => {
                if (process.stdin.isTTY === true)
                  process.stderr.write(
                    `${dim(`attached to ${id}; ${detachKeyText(key.right)} detaches`)}\r\n`,
                  )
              },
            }),
          )
          const { text, failed, code } = attachEndReport(id, end)
          yield* Console.error(failed ? `${red("error:")} ${text}` : text)
          // the runtime ends an interrupted command with status 0: a signal's status is set here
          if (end._tag === "Signalled") return yield* Effect.sync(() => process.exit(code))
          if (code !== 0) yield* exitWith(code)
        }),
      )
    }),
  )
