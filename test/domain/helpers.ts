import { Either, ParseResult, Schema } from "effect"

/** The decoding options the config loader uses: every problem, unknown keys are errors. */
export const strict = { errors: "all", onExcessProperty: "error" } as const

export interface Issue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** Strict decode helpers for a schema: `ok` returns the value, `fail` the issues. */
export const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, strict)
  return {
    ok: (input: unknown): A => {
      const r = decode(input)
      if (Either.isLeft(r))
        throw new Error(
          `expected ${JSON.stringify(input)} to decode: ${ParseResult.TreeFormatter.formatErrorSync(r.left)}`,
        )
      return r.right
    },
    fail: (input: unknown): ReadonlyArray<Issue> => {
      const r = decode(input)
      if (Either.isRight(r))
        throw new Error(`expected ${JSON.stringify(input)} to be rejected, got ${show(r.right)}`)
      return ParseResult.ArrayFormatter.formatErrorSync(r.left)
    },
  }
}

/** All issue messages joined, for `toContain` checks. */
export const messages = (issues: ReadonlyArray<Issue>): string => issues.map((i) => i.message).join("\n")

/** The issue paths as dotted strings. */
export const paths = (issues: ReadonlyArray<Issue>): Array<string> =>
  issues.map((i) => i.path.map(String).join("."))

export const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) throw new Error(`expected Right, got Left(${String(e.left)})`)
  return e.right
}

export const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) throw new Error(`expected Left, got Right(${show(e.right)})`)
  return e.left
}

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
