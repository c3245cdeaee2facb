import { allCommands, commandLine } from "../../usage/consume/commands.js"
import type { Spec } from "../../usage/model.js"
import { resolveOutput } from "./resolveOutput.js"

/** Text renderings for `supervisor spec` that are not a consumer of their own. */

/**
 * All Markdown files in one stream: each starts with a `<!-- file: NAME -->` line (an HTML
 * comment, so the stream still renders), files separated by a blank line. A script can split it
 * on those lines; `--out DIR` writes the files instead.
 */
export const markdownBundle = (files: ReadonlyMap<string, string>): string =>
  [...files].map(([name, content]) => `<!-- file: ${name} -->\n${content}`).join("\n")

/**
 * `spec resolve` without `--json`: per command, its outputs (framing, media type, how to select
 * it, whether it has a schema) and exit codes, then the files read.
 */
export const resolveSummary = (spec: Spec): string => {
  const doc = resolveOutput(spec)
  const lines: Array<string> = []
  for (const command of allCommands(spec)) {
    const line = commandLine(spec, command)
    const c = doc.commands[line]!
    lines.push(`${line}${command.hide ? " (hidden)" : ""}`)
    for (const o of c.outputs) {
      const how =
        o.selector === null
          ? ""
          : o.selector.kind === "present"
            ? `, ${o.selector.flag}`
            : `, ${o.selector.flag} ${o.selector.value}`
      const attrs = [
        o.framing,
        o.media_type,
        o.default ? "default" : null,
        o.schema !== null ? "schema" : null,
      ]
        .filter((a) => a !== null)
        .join(", ")
      lines.push(`  output ${o.name} (${attrs}${how})${o.help === null ? "" : `: ${o.help}`}`)
    }
    if (c.select !== null)
      lines.push(
        `  select ${c.select.flag}: ${c.select.choices.map((ch) => ch.value).join(", ") || "(no outputs)"}`,
      )
    for (const e of c.exit_codes) lines.push(`  exit ${e.code}: ${e.description}`)
  }
  lines.push(
    "sources:",
    ...(doc.sources.length === 0 ? ["  (none: read from stdin)"] : doc.sources.map((s) => `  ${s}`)),
  )
  return lines.join("\n")
}
