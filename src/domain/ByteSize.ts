import { Either, ParseResult, Schema } from "effect"
import { decodeWith } from "./parse.js"

const UNITS: ReadonlyArray<readonly [string, number]> = [
  ["b", 1],
  ["k", 1000],
  ["kb", 1000],
  ["m", 1000 ** 2],
  ["mb", 1000 ** 2],
  ["g", 1000 ** 3],
  ["gb", 1000 ** 3],
  ["t", 1000 ** 4],
  ["tb", 1000 ** 4],
  ["kib", 1024],
  ["mib", 1024 ** 2],
  ["gib", 1024 ** 3],
  ["tib", 1024 ** 4],
]
const unitBytes = new Map(UNITS)

/** Parses `50MB`, `512 MB`, `1GiB`, `256KiB`, `1.5G` or a plain byte count into bytes. */
export const parseByteSize = (input: string): Either.Either<number, string> => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(input)
  if (!m) return Either.left(`invalid byte size ${JSON.stringify(input)}; write e.g. 512MB, 1GiB or 256KiB`)
  const factor = m[2] === "" ? 1 : unitBytes.get(m[2]!.toLowerCase())
  if (factor === undefined) {
    return Either.left(
      `unknown unit ${JSON.stringify(m[2])} in byte size ${JSON.stringify(input)}; use B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)`,
    )
  }
  const bytes = Math.round(Number(m[1]) * factor)
  if (bytes <= 0) return Either.left(`byte size ${JSON.stringify(input)} must be greater than zero`)
  return Either.right(bytes)
}

/** Byte units, largest first: powers of 1024 and of 1000. */
export const BINARY_UNITS = [
  ["TiB", 1024 ** 4],
  ["GiB", 1024 ** 3],
  ["MiB", 1024 ** 2],
  ["KiB", 1024],
] as const
export const SI_UNITS = [
  ["TB", 1000 ** 4],
  ["GB", 1000 ** 3],
  ["MB", 1000 ** 2],
  ["KB", 1000],
] as const
const exact = (bytes: number, units: ReadonlyArray<readonly [string, number]>) =>
  units.find(([, size]) => bytes >= size && bytes % size === 0)

/** The shortest exact spelling: the unit giving the smallest number (binary on a tie), else bytes. */
export const formatByteSize = (bytes: number): string => {
  const candidates = [exact(bytes, BINARY_UNITS), exact(bytes, SI_UNITS)].filter((c) => c !== undefined)
  const best = candidates.sort((a, b) => bytes / a[1] - bytes / b[1])[0]
  return best ? `${bytes / best[1]}${best[0]}` : `${bytes}B`
}

/** A byte size string in config files, a number of bytes in the model. */
export const ByteSize = Schema.transformOrFail(
  Schema.String.annotations({
    identifier: "ByteSize",
    message: () => 'expected a byte size string such as "512MB", "1GiB" or "256KiB"',
    description:
      "A byte size: a number and a unit, SI (KB, MB, GB = powers of 1000) or binary (KiB, MiB, GiB)",
    jsonSchema: {
      type: "string",
      pattern: "^\\s*\\d+(\\.\\d+)?\\s*([KkMmGgTt]([Ii]?[Bb])?|[Bb])?\\s*$",
      examples: ["50MB", "512MB", "1GiB", "256KiB"],
    },
  }),
  Schema.Number,
  {
    strict: true,
    decode: decodeWith(parseByteSize),
    encode: (n) => ParseResult.succeed(formatByteSize(n)),
  },
)
