import { Either, Schema } from "effect"
import { nameProblem } from "./Name.js"

/** A parsed daemon ID: always qualified once resolved. */
export class DaemonId extends Schema.Class<DaemonId>("DaemonId")({
  namespace: Schema.String,
  name: Schema.String,
}) {
  /** `<namespace>/<name>` */
  get qualified(): string {
    return `${this.namespace}/${this.name}`
  }
  /** The qualified ID with `/` replaced by `--`: safe as a file name. */
  get safePath(): string {
    return `${this.namespace}--${this.name}`
  }
  override toString(): string {
    return this.qualified
  }
}

/** The `id` object of an API daemon entry. */
export const DaemonIdObject = Schema.Struct({
  namespace: Schema.String,
  name: Schema.String,
  qualified: Schema.String,
  safe_path: Schema.String,
}).annotations({ identifier: "DaemonIdObject" })

export const toIdObject = (id: DaemonId): typeof DaemonIdObject.Type => ({
  namespace: id.namespace,
  name: id.name,
  qualified: id.qualified,
  safe_path: id.safePath,
})

/**
 * Parses a daemon reference: a short name (resolved in `defaultNamespace`) or a
 * qualified `<namespace>/<name>`. Left carries a message naming the broken rule.
 */
export const parseDaemonRef = (input: string, defaultNamespace?: string): Either.Either<DaemonId, string> => {
  const parts = input.split("/")
  if (parts.length > 2)
    return Either.left(`${JSON.stringify(input)} has more than one slash; use <namespace>/<name>`)
  const [first, second] = parts as [string, string | undefined]
  if (second !== undefined) {
    const nsProblem = nameProblem(first)
    if (nsProblem)
      return Either.left(
        `invalid namespace ${JSON.stringify(first)} in ${JSON.stringify(input)}: ${nsProblem}`,
      )
    const problem = nameProblem(second)
    if (problem)
      return Either.left(
        `invalid daemon name ${JSON.stringify(second)} in ${JSON.stringify(input)}: ${problem}`,
      )
    return Either.right(new DaemonId({ namespace: first, name: second }))
  }
  const problem = nameProblem(first)
  if (problem) return Either.left(`invalid daemon name ${JSON.stringify(first)}: ${problem}`)
  if (defaultNamespace === undefined)
    return Either.left(
      `${JSON.stringify(input)} is a short name; use the qualified form <namespace>/${first}`,
    )
  return Either.right(new DaemonId({ namespace: defaultNamespace, name: first }))
}

/** Parses a qualified ID or a `safe_path` (`<namespace>--<name>`). */
export const parseQualified = (input: string): Either.Either<DaemonId, string> => {
  if (!input.includes("/")) {
    const at = input.indexOf("--")
    if (at > 0) return parseDaemonRef(`${input.slice(0, at)}/${input.slice(at + 2)}`)
  }
  return parseDaemonRef(input)
}

/** A reference to a daemon as written in a config file: short or qualified. */
export const DaemonRef = Schema.String.pipe(
  Schema.filter((s) => Either.match(parseDaemonRef(s, "_"), { onLeft: (m) => m, onRight: () => true }), {
    jsonSchema: { pattern: "^([A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)*/)?[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)*$" },
  }),
  Schema.annotations({
    identifier: "DaemonRef",
    description: "A daemon ID: a short name in the same namespace, or a qualified <namespace>/<name>",
  }),
)

/** A daemon ID that is not `<namespace>/<name>` where one is required (the API answers it with a 400). */
export class BadDaemonId extends Schema.TaggedError<BadDaemonId>()("BadDaemonId", {
  id: Schema.String,
  message: Schema.String,
}) {}

/** The qualified ID `input` is, or why it is none (a short name is none: it needs a namespace). */
export const qualifiedId = (input: string): Either.Either<string, BadDaemonId> =>
  Either.match(parseDaemonRef(input), {
    onLeft: (why) =>
      Either.left(
        new BadDaemonId({
          id: input,
          message: `malformed daemon ID: ${why} (in a path, ONE url-encoded segment: app%2Fweb)`,
        }),
      ),
    onRight: (id) => Either.right(id.qualified),
  })

/** Whether a daemon is in one of `namespaces` (every daemon when none is given): `list --namespace`, `tui`'s scope. */
export const inNamespaces =
  (namespaces: ReadonlyArray<string>) =>
  (id: { readonly namespace: string }): boolean =>
    namespaces.length === 0 || namespaces.includes(id.namespace)
