// `supervisor attach ID` (docs/attach.md): resolves the ID as every command does, then runs the
// attach session on this terminal and reports how it ended in one line on stderr.
import { Console, Effect, Either } from "effect"
import { resolveId, UsageError } from "../../control/selection.js"
import { detachKeyText, parseDetachKey } from "../../domain/detachKey.js"
import { signalExitStatus } from "../../domain/Signal.js"
import { type AttachEnd, attachSession } from "../../terminal/attachSession.js"
import type { AttachOptions } from "../args/attach.js"
import { attachAddress } from "../attachAddress.js"
import { SupervisorClient } from "../client.js"
import { cyan, dim, ExitCode, exitWith, red } from "../output.js"
import { withSupervisor } from "../session.js"
import { withSlugProjects } from "../slugIds.js"

/** The line that tells how a session ended, and the exit status of `supervisor attach`. */
export const endReport = (id: string, end: AttachEnd): { readonly line: string; readonly code: number } => {
  switch (end._tag) {
    case "Detached":
      return { line: `detached from ${cyan(id)} ${dim("(still running)")}`, code: ExitCode.ok }
    case "Exited":
      if (end.signal !== null)
        return {
          line: `${cyan(id)} was killed by ${end.signal}`,
          code: signalExitStatus(end.signal) ?? ExitCode.failure,
        }
      return {
        line: `${cyan(id)} exited with code ${end.code ?? "unknown"}`,
        code: end.code ?? ExitCode.failure,
      }
    case "Refused":
    case "Lost":
      return { line: `${red("error:")} ${end.message}`, code: ExitCode.failure }
    case "Signalled":
      return {
        line: `detached from ${cyan(id)} on ${end.signal} ${dim("(still running)")}`,
        code: signalExitStatus(end.signal) ?? ExitCode.failure,
      }
  }
}

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
      const address = yield* attachAddress(id)
      const end = yield* Effect.promise(() =>
        attachSession({
          address,
          detachKey: key.right,
          input: process.stdin,
          output: process.stdout,
          onAttached: () => {
            if (process.stdin.isTTY === true)
              process.stderr.write(`${dim(`attached to ${id}; ${detachKeyText(key.right)} detaches`)}\r\n`)
          },
        }),
      )
      const { line, code } = endReport(id, end)
      yield* Console.error(line)
      if (code !== 0) yield* exitWith(code)
    }),
  )
