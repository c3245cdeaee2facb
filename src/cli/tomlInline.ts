/**
 * A value as it would be written in a TOML file, on one line: `"text"`, `3000`, `["a", "b"]`,
 * `{ url = "http://…", timeout = "5s" }`. For showing configuration to people (`config show`).
 */
export const tomlInline = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (Array.isArray(value)) return `[${value.map(tomlInline).join(", ")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null)
    if (entries.length === 0) return "{}"
    return `{ ${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlInline(v)}`).join(", ")} }`
  }
  return JSON.stringify(value) ?? ""
}

const tomlKey = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key))

/**
 * A readiness check in the shortest form the configuration accepts: `ready_http = "URL"` rather
 * than `{ url = "URL" }` when nothing else is set; the table form otherwise.
 */
export const shortReadiness = (key: string, value: unknown): unknown => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value
  const set = Object.entries(value).filter(
    ([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0),
  )
  const only = (field: string) => (set.length === 1 && set[0]![0] === field ? set[0]![1] : undefined)
  const short =
    key === "ready_http"
      ? only("url")
      : key === "ready_port"
        ? only("port")
        : key === "ready_output"
          ? only("pattern")
          : key === "ready_cmd" || key === "health_cmd"
            ? only("run")
            : undefined
  return short ?? Object.fromEntries(set)
}
