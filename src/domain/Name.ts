import { Schema } from "effect"

/**
 * The naming rules of daemon names and namespaces (spec: "Daemon naming rules").
 * Returns the first rule the name breaks, or undefined when it is valid.
 */
export const nameProblem = (name: string): string | undefined => {
  if (name.length === 0) return "must not be empty"
  if (name.includes("/")) return "must not contain a slash (/)"
  if (/\s/.test(name)) return "must not contain spaces"
  if (name.includes("--"))
    return "must not contain the reserved sequence '--' (a double dash encodes namespaces)"
  if (name.includes("..")) return "must not contain a parent reference (..)"
  if (name.startsWith("-") || name.endsWith("-")) return "must not start or end with a dash (-)"
  const bad = /[^A-Za-z0-9_.-]/.exec(name)
  if (bad) return `may only contain ASCII letters, digits, "_", "-" and "." (found ${JSON.stringify(bad[0])})`
  return undefined
}

// Editors' regex engines (Taplo's among them) lack look-around: ".." is checked by supervisor itself.
const NAME_PATTERN = "^[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)*$"

const nameSchema = (identifier: string, what: string) =>
  Schema.String.pipe(
    Schema.filter(
      (s) => {
        const problem = nameProblem(s)
        return problem === undefined ? true : `invalid ${what} ${JSON.stringify(s)}: ${problem}`
      },
      { jsonSchema: { pattern: NAME_PATTERN } },
    ),
    Schema.annotations({
      identifier,
      description: `A ${what}: ASCII letters, digits, "_", "-" and "."; no "--", "..", spaces or slashes; no leading or trailing dash`,
    }),
  )

/** A daemon name, the part after the slash of a qualified ID. */
export const DaemonName = nameSchema("DaemonName", "daemon name")
/** A namespace, the part before the slash of a qualified ID. */
export const Namespace = nameSchema("Namespace", "namespace")

export const GLOBAL_NAMESPACE = "global"
