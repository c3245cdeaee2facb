/** The `code` of a Node system error (`ENOENT`, ...), if it has one. */
export const errnoCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

export const errorMessage = (error: unknown): string =>
  error instanceof Error ? error.message : String(error)
