// What `supervisor tui --namespace NS... --project DIR` scopes the dashboard to: namespaces, as
// `list --namespace` keeps them (src/domain/DaemonId.ts, inNamespaces), a project's being those
// `clean` means by "this project" (projectNamespaces), read from the configuration of DIR.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import { loadConfig } from "../config/Loader.js"
import { projectNamespaces, UsageError } from "../control/selection.js"
import { formatProblem } from "../domain/ConfigProblem.js"
import { nameProblem } from "../domain/Name.js"
import { ExitCode, red } from "./output.js"
import { isRemote } from "./remote.js"
import { Reported } from "./session.js"

/** The directory `--project` names, resolved from here; a usage error when it is none. */
export const projectDir = (input: string): Effect.Effect<string, UsageError> => {
  const dir = nodePath.resolve(input)
  return fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true
    ? Effect.succeed(dir)
    : Effect.fail(
        new UsageError({
          message: `--project ${input}: no such directory (${dir}); give a project's directory, such as --project .`,
        }),
      )
}

/**
 * The namespaces the dashboard shows: those of `--namespace` (each checked as a namespace name),
 * and the namespaces of the project in `--project`'s directory; none given, every daemon.
 */
export const tuiScope = (o: {
  readonly namespace: ReadonlyArray<string>
  readonly project: Option.Option<string>
}) =>
  Effect.gen(function* () {
    for (const ns of o.namespace) {
      const problem = nameProblem(ns)
      if (problem !== undefined)
        return yield* new UsageError({
          message: `--namespace ${JSON.stringify(ns)} is no namespace: it ${problem} (\`supervisor list\` shows each daemon as namespace/name)`,
        })
    }
    const project: Array<string> = []
    if (Option.isSome(o.project)) {
      // a project is files on this machine: a supervisor at a URL has its own
      if (isRemote())
        return yield* new UsageError({
          message: `--project reads a project's files on this machine, not the supervisor's at --url: scope the dashboard with --namespace instead`,
        })
      const dir = yield* projectDir(o.project.value)
      const config = yield* loadConfig({ cwd: dir, env: process.env }).pipe(
        Effect.catchTag("ConfigInvalid", (e) =>
          Effect.gen(function* () {
            for (const p of e.problems) yield* Console.error(`${red("error:")} ${formatProblem(p)}`)
            return yield* new Reported({ code: ExitCode.failure })
          }),
        ),
      )
      project.push(...projectNamespaces(config))
    }
    return [...new Set([...o.namespace, ...project])].sort()
  })
