// The config values of a daemon that may hold templates (docs/templates.md), with their key and
// syntax: what validation checks and what a start renders.
import type { DaemonConfig } from "./DaemonConfig.js"
import type { TemplateSyntax } from "./Template.js"

export interface TemplatedValue {
  /** The key below the daemon's table, as a path: `["env", "URL"]`, `["hooks", "on_ready"]`. */
  readonly path: ReadonlyArray<string>
  readonly value: string
  readonly syntax: TemplateSyntax
}

/** Every value of the daemon that may hold templates: `ready_*`, `health`, `run`, `env` values, hooks. */
export const templatedValues = (
  c: Pick<
    DaemonConfig,
    "run" | "env" | "hooks" | "ready_output" | "ready_http" | "ready_port" | "ready_cmd" | "health"
  >,
): ReadonlyArray<TemplatedValue> => {
  const out: Array<TemplatedValue> = []
  const add = (path: ReadonlyArray<string>, value: string | number | undefined, syntax: TemplateSyntax) => {
    if (typeof value === "string") out.push({ path, value, syntax })
  }
  add(["ready_output"], c.ready_output?.pattern, "strict")
  add(["ready_http"], c.ready_http?.url, "strict")
  add(["ready_port"], c.ready_port?.port, "strict")
  add(["ready_cmd"], c.ready_cmd?.run, "strict")
  add(["health", "http"], c.health?.http?.url, "strict")
  add(["health", "port"], c.health?.port, "strict")
  add(["health", "cmd"], c.health?.cmd, "strict")
  add(["run"], c.run, "shell")
  for (const [name, value] of Object.entries(c.env)) add(["env", name], value, "shell")
  for (const [hook, value] of Object.entries(c.hooks))
    add(["hooks", hook], typeof value === "string" ? value : value?.run, "shell")
  return out
}
