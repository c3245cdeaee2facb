// The TOML text of a new `[daemons.<id>]` table: values written in the shapes of the
// specification (a string or `{ schedule, retrigger, immediate }` for cron, `port = 3000`, a list
// or `{ expect, bump }` for ports, hooks in their own `[daemons.<id>.hooks]` table).

/** A TOML value: what `daemons add` writes. */
export type TomlValue =
  | string
  | number
  | boolean
  | ReadonlyArray<TomlValue>
  | { readonly [key: string]: TomlValue }

/** A TOML basic string: `"` and `\` escaped, control characters (newlines, tabs) as escapes. */
export const tomlString = (s: string): string => {
  let out = '"'
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0
    if (ch === '"') out += '\\"'
    else if (ch === "\\") out += "\\\\"
    else if (ch === "\n") out += "\\n"
    else if (ch === "\t") out += "\\t"
    else if (ch === "\r") out += "\\r"
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`
    else out += ch
  }
  return `${out}"`
}

/** A key, bare when TOML allows it (`web`), quoted otherwise (`"my.app"`: a dot would nest it). */
export const tomlKey = (key: string): string => (/^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key))

/** A value on one line: arrays as `[a, b]`, tables as inline `{ k = v }`. */
export const tomlValue = (v: TomlValue): string => {
  if (typeof v === "string") return tomlString(v)
  if (typeof v === "boolean") return v ? "true" : "false"
  if (typeof v === "number") return String(v)
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`
  const entries = Object.entries(v as { readonly [key: string]: TomlValue })
  return entries.length === 0
    ? "{}"
    : `{ ${entries.map(([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`).join(", ")} }`
}

/** What a daemon's new table holds: its keys in order, and the hooks table when any hook is set. */
export interface NewDaemon {
  readonly id: string
  readonly keys: ReadonlyArray<readonly [string, TomlValue]>
  readonly hooks: ReadonlyArray<readonly [string, string]>
}

/** The tables of a new daemon, each line ended with `eol`. */
export const daemonTables = (d: NewDaemon, eol: string): string => {
  const lines = [`[daemons.${tomlKey(d.id)}]`, ...d.keys.map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`)]
  if (d.hooks.length > 0)
    lines.push(
      "",
      `[daemons.${tomlKey(d.id)}.hooks]`,
      ...d.hooks.map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`),
    )
  return lines.map((l) => l + eol).join("")
}
