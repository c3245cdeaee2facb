import { Console, Effect } from "effect"
import { projectNamespaces, resolveId, UsageError } from "../../control/selection.js"
import { CleanResult } from "../../domain/CliOutput.js"
import { Clean } from "../../domain/Command.js"
import { isActive } from "../../domain/DaemonStatus.js"
import type { CleanOptions } from "../args/clean.js"
import { sendCommand } from "../commandClient.js"
import { here } from "../commandSelection.js"
import { canAsk, confirm } from "../confirm.js"
import { cyan, dim, green, printJson } from "../output.js"
import { knownDaemons } from "../selection.js"
import { withSupervisor } from "../session.js"

/** The daemons a clean acts on: those named, this project's, or (`--all-projects`) every one. */
type Scope =
  | { readonly _tag: "named"; readonly ids: ReadonlyArray<string> }
  | { readonly _tag: "project"; readonly namespaces: ReadonlyArray<string> }
  | { readonly _tag: "all" }

const NEVER_RUN: ReadonlyArray<string> = ["available", "disabled"]

const inScope = (scope: Scope, id: string): boolean =>
  scope._tag === "all" ||
  (scope._tag === "named" ? scope.ids.includes(id) : scope.namespaces.includes(id.slice(0, id.indexOf("/"))))

const nothingText = (scope: Scope): string =>
  scope._tag === "project"
    ? `nothing to clean: no stopped daemons in this project (${scope.namespaces.join(", ")}); \`supervisor clean --all-projects\` cleans every project`
    : scope._tag === "named"
      ? "nothing to clean: none of these daemons is stopped"
      : "nothing to clean: no stopped daemons"

/**
 * `supervisor clean`: forgets this project's daemons that are not running, and deletes their
 * logs; `--all-projects` every project's, IDs only those. On a terminal it lists them and asks
 * first (`--yes` does not); without one it proceeds, as pitchfork's clean does.
 */
export const clean = (o: CleanOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      if (o.allProjects && o.ids.length > 0)
        return yield* new UsageError({ message: "--all-projects cannot be combined with daemon IDs" })
      const known = yield* knownDaemons
      // the supervisor resolves IDs as typed here; the confirmation lists them first, resolved
      // the same way (display only)
      const scope: Scope = o.allProjects
        ? { _tag: "all" }
        : o.ids.length > 0
          ? {
              _tag: "named",
              ids:
                canAsk() && !o.yes ? yield* Effect.forEach(o.ids, (id) => resolveId(id, config, known)) : [],
            }
          : { _tag: "project", namespaces: projectNamespaces(config) }
      const where = here(config)
      let command =
        scope._tag === "all"
          ? new Clean({ selection: { ids: [], all: false }, reason: "cli" })
          : scope._tag === "named"
            ? new Clean({
                selection: { ids: o.ids, all: false, ...(where === undefined ? {} : { from: where }) },
                reason: "cli",
              })
            : new Clean({ selection: { ids: [], all: false }, namespaces: scope.namespaces, reason: "cli" })
      if (!o.yes && canAsk()) {
        // never run (`available`, `disabled`: a known project's configured daemon) is nothing to forget
        const candidates = known.filter(
          (k) => !isActive(k) && !NEVER_RUN.includes(k.status.type) && inScope(scope, k.id.qualified),
        )
        if (candidates.length === 0) {
          if (o.json) return yield* printJson(CleanResult, { removed: [] })
          return yield* Console.log(dim(nothingText(scope)))
        }
        for (const k of candidates) yield* Console.log(`  ${cyan(k.id.qualified)} ${dim(k.status.type)}`)
        const n = candidates.length
        const yes = yield* confirm(
          n === 1 ? "Forget 1 daemon and delete its logs?" : `Forget ${n} daemons and delete their logs?`,
        )
        if (!yes) {
          if (o.json) return yield* printJson(CleanResult, { removed: [] })
          return yield* Console.log(dim("nothing forgotten"))
        }
        // exactly those listed: a daemon stopped meanwhile was not shown, so it stays
        command = new Clean({
          selection: { ids: candidates.map((k) => k.id.qualified), all: false },
          reason: "cli",
        })
      }
      const r = yield* sendCommand(command)
      if (o.json) return yield* printJson(CleanResult, r)
      if (r.removed.length === 0) return yield* Console.log(dim(nothingText(scope)))
      for (const id of r.removed) yield* Console.log(`${green("✓")} forgot ${cyan(id)}`)
    }),
  )
