// What every importer produces (daemons as `daemons add` writes them, and warnings for what does
// not map), the typed error for a file that cannot be imported, and the `supervisor.toml` text.
import { Data, Schema } from "effect"
import { daemonTables, type NewDaemon, type TomlValue } from "../config/edit/daemonToml.js"
import { nameProblem } from "../domain/Name.js"

/** Something of the source that has no equivalent (or only an approximate one): never dropped silently. */
export const ImportWarning = Schema.Struct({
  key: Schema.String.annotations({ description: "where in the source file, e.g. apps[0].instances" }),
  message: Schema.String,
})
export type ImportWarning = typeof ImportWarning.Type

/** `supervisor import --json`: the TOML text and the warnings. */
export const ImportOutput = Schema.Struct({
  toml: Schema.String.annotations({ description: "the supervisor.toml text" }),
  warnings: Schema.Array(ImportWarning),
}).annotations({ identifier: "ImportOutput" })

/** A source file that cannot be imported: which file, which key, what is wrong and what to do. */
export class ImportFailed extends Data.TaggedError("ImportFailed")<{
  readonly file: string
  readonly key?: string
  readonly problem: string
  readonly hint: string
}> {
  override get message(): string {
    const key = this.key === undefined ? "" : `${this.key}: `
    return `${this.file}: ${key}${this.problem}\n  hint: ${this.hint}`
  }
}

/** The result of an importer: the daemons in the source's order, and the warnings. */
export interface Imported {
  readonly daemons: ReadonlyArray<NewDaemon>
  readonly warnings: ReadonlyArray<ImportWarning>
}

/** Collects a daemon's keys in order, and the warnings of a whole file. */
export class Collector {
  readonly warnings: Array<ImportWarning> = []
  readonly daemons: Array<NewDaemon> = []
  private readonly taken = new Set<string>()

  warn(key: string, message: string): void {
    this.warnings.push({ key, message })
  }

  /**
   * A valid daemon name for `name` (found at `key`): kept when valid, else made valid (characters
   * outside `[A-Za-z0-9_.-]` become `-`) with a warning; a name already taken gets a suffix.
   */
  name(name: string, key: string): string {
    let out = name
    if (nameProblem(name) !== undefined) {
      out = name
        .replace(/[^A-Za-z0-9_.-]/g, "-")
        .replace(/-{2,}/g, "-")
        .replace(/\.{2,}/g, ".")
        .replace(/^-+|-+$/g, "")
      if (out === "" || nameProblem(out) !== undefined) out = "daemon"
    }
    const valid = out
    for (let n = 2; this.taken.has(out); n++) out = `${valid}-${n}`
    if (out !== name)
      this.warn(
        key,
        `${JSON.stringify(name)} ${valid === name ? "is taken by another process" : "is not a valid daemon name"}: imported as ${JSON.stringify(out)}`,
      )
    this.taken.add(out)
    return out
  }

  add(id: string, keys: ReadonlyArray<readonly [string, TomlValue | undefined]>): void {
    const kept = keys.filter((k): k is readonly [string, TomlValue] => k[1] !== undefined)
    this.daemons.push({ id, keys: kept, hooks: [] })
  }

  result(): Imported {
    return { daemons: this.daemons, warnings: this.warnings }
  }
}

/** The `supervisor.toml` text: a comment naming the source, then one table per daemon, blank lines between. */
export const renderToml = (imported: Imported, source: string): string =>
  [
    `# Imported from ${source} by \`supervisor import\`.\n`,
    ...imported.daemons.map((d) => daemonTables(d, "\n")),
  ].join("\n")

/** A plain JSON object (not an array, not null). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/** An environment table: values that are strings, numbers or booleans; anything else is a warning. */
export const envTable = (value: unknown, key: string, c: Collector): Record<string, string> | undefined => {
  const env: Record<string, string> = {}
  const put = (name: string, v: unknown) => {
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") env[name] = String(v)
    else c.warn(`${key}.${name}`, "not a string, number or boolean: not imported")
  }
  if (isRecord(value)) for (const [name, v] of Object.entries(value)) put(name, v)
  else if (Array.isArray(value))
    value.forEach((item, i) => {
      const eq = typeof item === "string" ? item.indexOf("=") : -1
      if (typeof item !== "string" || eq <= 0) c.warn(`${key}[${i}]`, "expected NAME=VALUE: not imported")
      else put(item.slice(0, eq), item.slice(eq + 1))
    })
  else if (value !== undefined) c.warn(key, "expected a table of variables: not imported")
  return Object.keys(env).length > 0 ? env : undefined
}
