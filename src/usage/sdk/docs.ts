import type { CommandPlan, FlagPlan, OutputMethodPlan } from "./plan.js"

/**
 * Doc-comment text shared by both languages, as plain lines (Markdown-ish). The renderers only
 * wrap the lines (JSDoc, docstrings), so a TypeScript and a Python user read the same words.
 */

export type DocLanguage = "typescript" | "python"

/** Splits free text (help, long help, schemas) into lines, dropping trailing blank ones. */
export const textLines = (text: string): Array<string> => {
  const lines = text.replace(/\r\n?/g, "\n").split("\n")
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop()
  return lines
}

/** Class documentation: what the command does, how it is invoked, its positional arguments. */
export const commandDoc = (plan: CommandPlan): Array<string> => {
  const { command } = plan
  const lines = [`\`${plan.invocation}\`${command.help === undefined ? "" : `: ${command.help}`}`]
  if (command.long_help !== undefined) lines.push("", ...textLines(command.long_help))
  if (command.hide) lines.push("", "Hidden in the CLI's help.")
  if (plan.args.length > 0) {
    lines.push("", "Positional arguments:")
    for (const { arg } of plan.args) {
      lines.push(`- \`${arg.usage}\`${arg.help === undefined ? "" : `: ${arg.help}`}`)
    }
  }
  return lines
}

/** One flag's documentation: its spec string, help and default. */
export const flagDoc = (plan: FlagPlan): Array<string> => {
  const { flag } = plan
  const parts = [`\`${flag.usage}\``]
  if (flag.help !== undefined) parts.push(`: ${flag.help}`)
  if (flag.default !== undefined) parts.push(` (default: \`${flag.default}\`)`)
  if (flag.global) parts.push(" (global)")
  const lines = [parts.join("")]
  if (flag.variadic)
    lines.push(plan.kind === "boolean" ? "Repeatable: a number repeats it." : "Repeatable: pass a list.")
  return lines
}

const methodName = (method: OutputMethodPlan, lang: DocLanguage) =>
  lang === "typescript" ? method.tsName : method.pyName

/** A parsed-output method's documentation, including the output's JSON schema when it has one. */
export const outputMethodDoc = (
  method: OutputMethodPlan,
  all: ReadonlyArray<OutputMethodPlan>,
  lang: DocLanguage,
): Array<string> => {
  const { output } = method
  const ts = lang === "typescript"
  const lines: Array<string> = []
  if (method.alias) {
    const target = all.find((other) => !other.alias && other.output === output)
    const name = target === undefined ? output.name : methodName(target, lang)
    lines.push(`Alias of \`${name}\`: the command's only ${method.framing} output.`, "")
  }
  const media = output.media_type === undefined ? "" : `, media type \`${output.media_type}\``
  lines.push(`Output \`${output.name}\` (${method.framing} framing${media}).`)
  if (output.help !== undefined) lines.push(...textLines(output.help))
  lines.push(
    method.selectorArgv.length === 0
      ? "It is the default output: no selector flag is passed."
      : `Selected with \`${method.selectorArgv.join(" ")}\`, which this method passes itself.`,
  )
  lines.push("")
  if (method.framing === "json") {
    lines.push(
      ts
        ? "Resolves to the parsed stdout in `value` (null when stdout is empty). A non-zero exit is returned in `exitCode`, not thrown."
        : "Returns the parsed stdout in `value` (None when stdout is empty). A non-zero exit is returned in `exit_code`, not raised.",
    )
  } else {
    lines.push(
      ts
        ? "Streams one parsed document per line as the CLI writes it. Leaving the loop early (`break`, `return()`, `stop()`) kills the CLI; read how it ended from `exit`."
        : "Yields one parsed document per line as the CLI writes it. Stopping early (`break`, `close()`, leaving a `with` block, garbage collection) kills the CLI; read how it ended from `exit`.",
    )
  }
  if (output.schema !== undefined) {
    const from = output.schema_file === undefined ? "" : ` (from \`${output.schema_file}\`)`
    lines.push("", `JSON Schema${from}:`, "```json", ...textLines(output.schema), "```")
  }
  return lines
}

/** The raw method's documentation. */
export const execDoc = (plan: CommandPlan, lang: DocLanguage): Array<string> => [
  `Runs \`${plan.invocation}\` with the given arguments and flags and returns its stdout, stderr and exit code.`,
  lang === "typescript"
    ? "A non-zero exit resolves; the promise rejects only when the binary cannot be started."
    : "A non-zero exit is returned; an OSError is raised only when the binary cannot be started.",
]
