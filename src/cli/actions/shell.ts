// `supervisor activate`, the hook's hidden `cd`, and `supervisor project enter|leave|list`.
import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import { PresenceList } from "../../domain/Presence.js"
import { quickCd } from "../../quick/cd.js"
import { hookScript, type ShellName } from "../../shell/hooks.js"
import { SupervisorClient } from "../client.js"
import { dim, green, note, printJson, red } from "../output.js"
import { withSupervisor } from "../session.js"
import { renderTable } from "../table.js"

/** Prints the hook, running this very `node` and `supervisor` (absolute paths). */
export const activate = (shell: ShellName) =>
  Console.log(hookScript(shell, [process.execPath, nodePath.resolve(process.argv[1]!)]).trimEnd())

/** The hook's command when the launcher did not answer it itself (src/quick/cd.ts does the work). */
export const cd = (o: {
  readonly shellPid: number
  readonly background: boolean
  readonly at: Option.Option<number>
}) =>
  Effect.promise(() =>
    quickCd([
      "--shell-pid",
      String(o.shellPid),
      ...(o.background ? ["--background"] : []),
      ...Option.match(o.at, { onNone: () => [], onSome: (at) => ["--at", String(at)] }),
    ]),
  ).pipe(Effect.asVoid)

interface SessionOptions {
  readonly pid: number
  readonly directory: Option.Option<string>
}

const directoryOf = (o: SessionOptions) =>
  nodePath.resolve(Option.getOrElse(o.directory, () => process.cwd()))

export const enter = (o: SessionOptions) =>
  withSupervisor(false, () =>
    Effect.gen(function* () {
      const c = yield* SupervisorClient
      const entered = yield* c.api.presence.enter({ payload: { pid: o.pid, directory: directoryOf(o) } })
      yield* Console.log(`entered ${entered.directory} (session of pid ${entered.pid})`)
    }),
  )

export const leave = (o: SessionOptions) =>
  withSupervisor(false, () =>
    Effect.gen(function* () {
      const c = yield* SupervisorClient
      const directory = Option.map(o.directory, (d) => nodePath.resolve(d))
      const { left } = yield* c.api.presence.leave({
        payload: { pid: o.pid, ...(Option.isSome(directory) ? { directory: directory.value } : {}) },
      })
      if (left.length === 0) yield* Console.log(`no project session of pid ${o.pid} to leave`)
      for (const s of left) yield* Console.log(`left ${s.directory} (session of pid ${s.pid})`)
    }),
  )

/**
 * `project list`: pitchfork's columns first (`PID DIRECTORY STATUS`, the status `alive` or
 * `dead`), then ours (`KIND SINCE`). The header only on a terminal, as pitchfork prints it: piped,
 * the rows alone, and nothing at all when there are none.
 */
export const list = (o: { readonly json: boolean }) =>
  withSupervisor(false, () =>
    Effect.gen(function* () {
      const c = yield* SupervisorClient
      const all = yield* c.api.presence.presence()
      if (o.json) return yield* printJson(PresenceList, all)
      const terminal = process.stdout.isTTY === true
      if (all.length === 0) return terminal ? yield* note(dim("no shell or project session")) : undefined
      const table = renderTable(
        ["PID", "DIRECTORY", "STATUS", "KIND", "SINCE"],
        all.map((s) => [String(s.pid), s.directory, s.alive ? green("alive") : red("dead"), s.kind, s.since]),
      )
      yield* Console.log(terminal ? table : table.split("\n").slice(1).join("\n"))
    }),
  )
