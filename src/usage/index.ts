// The usage spec (KDL) module: parse, resolve, validate and write back. Re-exports only.
export { formatUsageProblem, formatUsageProblems, UsageSpecError, type UsageSpecProblem } from "./errors.js"
export { parseSpecFile, parseSpecString } from "./parse.js"
export { writeSpec } from "./writer.js"
