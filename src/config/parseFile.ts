import { FileSystem } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { parse as parseToml, TomlError } from "smol-toml"
import { ConfigFile, Group } from "../domain/ConfigFile.js"
import {
  type ConfigProblem,
  InvalidDaemonName,
  InvalidDependency,
  InvalidGroupMember,
  InvalidValue,
  TomlSyntaxError,
  UnknownKey,
  UnreadableFile,
} from "../domain/ConfigProblem.js"
import { DaemonOptions } from "../domain/DaemonOptions.js"
import { DEPENDENCY_CONDITIONS } from "../domain/Dependency.js"
import type { EnvFileRef } from "../domain/EnvFile.js"
import { nameProblem } from "../domain/Name.js"
import type { ConfigLocation } from "./discover.js"
import { valueIssues } from "./issues.js"
import { locateKey } from "./locate.js"
import { type At, foldDaemonForms, foldFlatSettings } from "./pitchforkForms.js"
import { type Redefinition, redefinition } from "./redefinedKey.js"

/** One file, parsed and checked on its own (before namespaces and merging). */
export interface ParsedFile {
  readonly location: ConfigLocation
  readonly text: string
  readonly declaredNamespace: string | undefined
  /** The file's top-level `worktree` (docs/worktrees.md), if set. */
  readonly declaredWorktree?: string | false | undefined
  /** Daemons that decoded cleanly, by name; a daemon with problems maps to undefined. */
  readonly daemons: ReadonlyArray<readonly [string, DaemonOptions | undefined]>
  readonly groups: ReadonlyArray<readonly [string, typeof Group.Type]>
  readonly slugs: Readonly<Record<string, unknown>> | undefined
  /** The raw `[namespaces]` table (checked by src/config/knownNamespaces.ts). */
  readonly namespaces?: Readonly<Record<string, unknown>> | undefined
  /** The top-level `[env]` and `env_file` (paths as written), when the file decodes. */
  readonly sharedEnv?: Readonly<Record<string, string>> | undefined
  readonly sharedEnvFile?: ReadonlyArray<EnvFileRef> | undefined
  /** Raw settings tables by group, merged across files before decoding. */
  readonly settings: Readonly<Record<string, Record<string, unknown>>>
  readonly problems: ReadonlyArray<ConfigProblem>
  /** pitchfork's spellings read as ours (src/config/pitchforkForms.ts), each with where and what to write. */
  readonly warnings: ReadonlyArray<string>
}

export const keyPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (acc, k) => (typeof k === "number" ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)),
    "",
  )

const isTable = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)
const strictDecode = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })
const decodeFile = strictDecode(ConfigFile)
const decodeDaemon = strictDecode(DaemonOptions)
const decodeGroup = strictDecode(Group)

const empty = (location: ConfigLocation, text: string, problems: Array<ConfigProblem>): ParsedFile => ({
  location,
  text,
  declaredNamespace: undefined,
  daemons: [],
  groups: [],
  slugs: undefined,
  settings: {},
  problems,
  warnings: [],
})

/** Whether a line opens a one-line string ("..." with escapes, or '...') that it does not close. */
const unclosedQuote = (line: string): boolean => {
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quote === undefined) {
      if (c === "#") return false
      if (c === '"' || c === "'") quote = c
    } else if (quote === '"' && c === "\\") i++
    else if (c === quote) quote = undefined
  }
  return quote !== undefined
}

/** A key or table defined twice, by name, with the line of its first definition. */
const redefined = (file: string, line: number, r: Redefinition) => {
  const first = r.first === undefined ? "" : ` (first on line ${r.first})`
  return new TomlSyntaxError({
    file,
    line,
    key: r.key,
    message: r.table
      ? `TOML syntax error: the table [${r.key}] is defined twice${first}`
      : `TOML syntax error: the key is set twice${first}`,
    hint: r.table
      ? `write the keys of [${r.key}] under one header`
      : "keep one of them: a TOML key is set once",
  })
}

/** Parses TOML text and checks it against the file schema, collecting every problem. */
export const parseConfigText = (location: ConfigLocation, text: string): ParsedFile => {
  const file = location.path
  let raw: unknown
  try {
    raw = parseToml(text)
  } catch (e) {
    const err = e as TomlError
    let detail = (err.message ?? String(e)).split("\n")[0]!.replace(/^Invalid TOML document: /, "")
    // smol-toml meets the line's end inside a string as a control character in it
    if (err instanceof TomlError && /control characters are not allowed/.test(detail)) {
      const line = text.split("\n")[err.line - 1] ?? ""
      if (unclosedQuote(line))
        detail = `unterminated string: a "..." or '...' string must end on the line where it starts (use """...""" for several lines)`
    }
    const again =
      err instanceof TomlError && /redefine/.test(detail) ? redefinition(text, err.line) : undefined
    if (again !== undefined) return empty(location, text, [redefined(file, err.line, again)])
    return empty(location, text, [
      new TomlSyntaxError({
        file,
        ...(err instanceof TomlError ? { line: err.line } : {}),
        message: `TOML parse error: ${detail}${err instanceof TomlError ? ` (column ${err.column})` : ""}`,
        hint: "fix the TOML syntax; see https://toml.io",
      }),
    ])
  }
  const table = raw as Record<string, unknown>
  const problems: Array<ConfigProblem> = []
  const at = (path: ReadonlyArray<PropertyKey>) => {
    const line = locateKey(
      text,
      path.map((p) => (typeof p === "symbol" ? String(p) : p)),
    )
    return line === undefined ? {} : { line }
  }
  const decoded = decodeFile(raw)
  if (Either.isLeft(decoded)) {
    for (const issue of valueIssues(ConfigFile, decoded.left)) {
      // A string `namespace` is checked (with a hint) when the namespace is derived: report it once.
      if (issue.path[0] === "namespace" && typeof table.namespace === "string") continue
      const fields = { file, ...at(issue.path), key: keyPath(issue.path), message: issue.message }
      const withHint = issue.hint === undefined ? fields : { ...fields, hint: issue.hint }
      const refHint = { ...withHint, hint: "write a daemon name or <namespace>/<name>" }
      const conditionHint = {
        ...withHint,
        hint: `write one of ${DEPENDENCY_CONDITIONS.map((c) => JSON.stringify(c)).join(", ")}`,
      }
      problems.push(
        issue.kind === "unknown-key"
          ? new UnknownKey(withHint)
          : issue.path[0] === "groups" && issue.path[2] === "daemons" && typeof issue.path[3] === "number"
            ? new InvalidGroupMember(refHint)
            : issue.path[0] === "daemons" && issue.path[2] === "depends" && typeof issue.path[3] === "number"
              ? new InvalidDependency(issue.path[4] === "condition" ? conditionHint : refHint)
              : new InvalidValue(withHint),
      )
    }
  }
  const warnings: Array<string> = []
  const located: At = (path) => ({ file, ...at(path) })
  const daemons: Array<readonly [string, DaemonOptions | undefined]> = []
  if (isTable(table.daemons)) {
    for (const [name, value] of Object.entries(table.daemons)) {
      const problem = nameProblem(name)
      if (problem) {
        problems.push(
          new InvalidDaemonName({
            file,
            ...at(["daemons", name]),
            key: `daemons.${name}`,
            message: `invalid daemon name ${JSON.stringify(name)}: ${problem}`,
            hint: "rename the [daemons.<name>] table: ASCII letters, digits, _, - and . only",
          }),
        )
        continue
      }
      const d = decodeDaemon(value)
      if (Either.isLeft(d) || !isTable(value)) {
        daemons.push([name, undefined])
        continue
      }
      const folded = foldDaemonForms(name, d.right, value, located)
      warnings.push(...folded.warnings)
      problems.push(...folded.problems)
      daemons.push([name, folded.problems.length === 0 ? folded.value : undefined])
    }
  }
  const groups: Array<readonly [string, typeof Group.Type]> = []
  if (isTable(table.groups)) {
    for (const [name, value] of Object.entries(table.groups)) {
      const g = decodeGroup(value)
      if (Either.isRight(g)) groups.push([name, g.right])
    }
  }
  let settings: Record<string, Record<string, unknown>> = {}
  if (isTable(table.settings)) {
    const folded = foldFlatSettings(table.settings, located)
    settings = folded.value
    warnings.push(...folded.warnings)
    problems.push(...folded.problems)
  }
  if (isTable(table.general)) settings.general = { ...table.general, ...settings.general }
  return {
    location,
    text,
    declaredNamespace: typeof table.namespace === "string" ? table.namespace : undefined,
    declaredWorktree:
      (typeof table.worktree === "string" && table.worktree.trim() !== "") || table.worktree === false
        ? table.worktree
        : undefined,
    daemons,
    groups,
    slugs: isTable(table.slugs) ? table.slugs : undefined,
    namespaces: isTable(table.namespaces) ? table.namespaces : undefined,
    sharedEnv: Either.isRight(decoded) ? decoded.right.env : undefined,
    sharedEnvFile: Either.isRight(decoded) ? decoded.right.env_file : undefined,
    settings,
    problems,
    warnings,
  }
}

/** Reads and parses one file. A file that exists but cannot be read is a problem, not a crash. */
export const readConfigFile = (location: ConfigLocation) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    return yield* fs.readFileString(location.path).pipe(
      Effect.map((text) => parseConfigText(location, text)),
      Effect.catchAll((e) =>
        Effect.succeed(
          empty(location, "", [
            new UnreadableFile({
              file: location.path,
              message: `cannot read the file: ${e.message}`,
              hint: "check its permissions, or remove it",
            }),
          ]),
        ),
      ),
    )
  })
