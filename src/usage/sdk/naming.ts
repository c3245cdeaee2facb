/**
 * Identifier spelling for the generated SDKs. Spec names (`dry-run`, `daemons`, `ndjson`) are free
 * text; every generated identifier goes through these helpers so TypeScript and Python spell the
 * same concept the same way (`DaemonsStartCommand`, `dryRun` / `dry_run`), and so a name the target
 * language rejects (a keyword, a leading digit, punctuation) becomes a valid one deterministically.
 */

/** Lower-case ASCII words of a name: `dry-run`, `dryRun` and `DRY_RUN` all give `["dry", "run"]`. */
export const words = (name: string): ReadonlyArray<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase())

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1)

/** `daemons start` → `DaemonsStart`. */
export const pascalCase = (name: string): string => words(name).map(capitalize).join("")

/** `dry-run` → `dryRun`. */
export const camelCase = (name: string): string => {
  const [first, ...rest] = words(name)
  return first === undefined ? "" : first + rest.map(capitalize).join("")
}

/** `dry-run` → `dry_run`. */
export const snakeCase = (name: string): string => words(name).join("_")

/** `daemon not found` → `DAEMON_NOT_FOUND`. */
export const upperSnakeCase = (name: string): string => snakeCase(name).toUpperCase()

/** Words TypeScript does not accept as a binding name (tuple labels, parameters). */
const typeScriptReserved = new Set([
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "null",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "implements",
  "interface",
  "let",
  "package",
  "private",
  "protected",
  "public",
  "static",
  "yield",
  "await",
])

/** Python's hard keywords (soft keywords such as `match` and `type` are valid names). */
const pythonKeywords = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
])

const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Whether `name` can be written unquoted as a TypeScript property key. */
export const isTypeScriptPropertyName = (name: string): boolean => identifierPattern.test(name)

/** A TypeScript binding name from `name`, or `fallback` when nothing usable is left. */
export const typeScriptBinding = (name: string, fallback: string): string => {
  const candidate = camelCase(name)
  if (candidate === "" || !identifierPattern.test(candidate)) return fallback
  return typeScriptReserved.has(candidate) ? `${candidate}_` : candidate
}

/**
 * A Python identifier from a snake-cased name: a keyword gets a trailing underscore (PEP 8), a
 * leading digit a prefix, and an empty name the fallback.
 */
export const pythonIdentifier = (candidate: string, fallback: string, digitPrefix: string): string => {
  if (candidate === "") return fallback
  const valid = /^[0-9]/.test(candidate) ? `${digitPrefix}${candidate}` : candidate
  return pythonKeywords.has(valid) ? `${valid}_` : valid
}

/** A PascalCase type name that does not start with a digit. */
export const typeName = (name: string, digitPrefix: string): string => {
  const candidate = pascalCase(name)
  return /^[0-9]/.test(candidate) ? `${digitPrefix}${candidate}` : candidate
}

/**
 * Hands out unique names in one namespace: the first request for a name gets it, later ones get
 * `name2`, `name3`, ... Allocation order is the spec's order, so the output is deterministic.
 */
export class NameAllocator {
  private readonly taken: Set<string>

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved)
  }

  /** Whether `name` is already handed out (or reserved). */
  has(name: string): boolean {
    return this.taken.has(name)
  }

  /** `name` itself when free, otherwise the first free `name<n>`. */
  take(name: string): string {
    let candidate = name
    for (let n = 2; this.taken.has(candidate); n++) candidate = `${name}${n}`
    this.taken.add(candidate)
    return candidate
  }
}
