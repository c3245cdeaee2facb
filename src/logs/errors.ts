import { Data } from "effect"

/** A log file could not be read or written, or a daemon ID was not a qualified `namespace/name`. */
export class LogStoreError extends Data.TaggedError("LogStoreError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : JSON.stringify(cause)

/** A LogStoreError for a failed file operation: `"<op> <path>: <cause>"`. */
export const fsError = (op: string, path: string, cause: unknown): LogStoreError =>
  new LogStoreError({ message: `${op} ${path}: ${describe(cause)}`, cause })

export const isErrno = (cause: unknown, code: string): boolean =>
  typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === code
