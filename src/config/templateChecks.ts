// The checks of a daemon's templates that need the whole configuration (docs/templates.md): a
// template naming a daemon must name a configured one, and `daemon.ports[N]` a port it declares.
// Unknown names are the file schema's to report (they are known from one value alone).
import { Either } from "effect"
import { InvalidTemplate } from "../domain/ConfigProblem.js"
import type { DaemonConfig } from "../domain/DaemonConfig.js"
import { type DaemonId, parseDaemonRef } from "../domain/DaemonId.js"
import { closest } from "../domain/suggest.js"
import { templateRefs } from "../domain/Template.js"
import { templatedValues } from "../domain/templatedValues.js"

/** How a template names daemon `id` from namespace `namespace`: its short name there, else its ID. */
const shortRef = (id: string, namespace: string): string =>
  id.startsWith(`${namespace}/`) ? id.slice(namespace.length + 1) : id

/**
 * The problems of daemon `id`'s templates; `known` is every configured daemon (qualified IDs),
 * `locate` gives the file and line of a key below the daemon's table.
 */
export const templateProblems = (
  id: DaemonId,
  config: DaemonConfig,
  known: ReadonlyArray<string>,
  locate: (path: ReadonlyArray<string>) => { readonly file: string; readonly line?: number },
): Array<InvalidTemplate> => {
  const problems: Array<InvalidTemplate> = []
  const declared = config.port?.expect.length ?? 0
  for (const { path, value, syntax } of templatedValues(config)) {
    // located only for a problem: finding a key's line reads the whole file
    const at = () => ({ ...locate(path), key: `daemons.${id.name}.${path.join(".")}` })
    for (const ref of templateRefs(value, syntax).refs) {
      if (ref.name._tag === "DaemonPort" && ref.name.index >= declared)
        problems.push(
          new InvalidTemplate({
            ...at(),
            message: `template ${ref.text} needs port ${ref.name.index + 1} of ${id.qualified}, which declares ${declared}`,
            hint:
              declared === 0
                ? "set `port` on it"
                : `its ports are {{ daemon.ports[0] }} to {{ daemon.ports[${declared - 1}] }}`,
          }),
        )
      if (ref.name._tag !== "OtherDaemon") continue
      const named = ref.name.daemon
      const target = parseDaemonRef(named, id.namespace)
      const qualified = Either.isRight(target) ? target.right.qualified : named
      if (known.includes(qualified)) continue
      const suggestion = closest(qualified, known) ?? known.find((k) => k.endsWith(`/${named}`))
      problems.push(
        new InvalidTemplate({
          ...at(),
          message: `template ${ref.text} names ${JSON.stringify(named)}, which is not a configured daemon`,
          hint:
            suggestion !== undefined
              ? `did you mean {{ daemons.${shortRef(suggestion, id.namespace)}.${ref.name.field} }}?`
              : `known daemons: ${known.join(", ") || "(none)"}`,
        }),
      )
    }
  }
  return problems
}
