// The order of daemon listings (`list`, `list --json`, the API): by qualified ID, ignoring the
// case of A-Z first, then by UTF-16 code unit. The same on every machine, in every locale, in
// the CLI and in the supervisor, and without ICU: `localeCompare` depended on the Node/ICU
// build and LANG/LC_*, and its first call loaded ICU's collation data (12-16 ms, ~2.8 MiB of
// resident memory in the supervisor; docs/benchmarks.md). No Effect here (dist/quick.cjs).

const lowerAscii = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase())

/**
 * Compares two IDs: `Api` sorts next to `api` (after it), both before `B`; digits are compared as
 * characters (`d10` before `d2`).
 */
export const compareIds = (a: string, b: string): number => {
  if (a === b) return 0
  const la = lowerAscii(a)
  const lb = lowerAscii(b)
  if (la !== lb) return la < lb ? -1 : 1
  return a < b ? 1 : -1
}
