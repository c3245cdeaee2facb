// `supervisor list --json` without the CLI bundle: the launcher (scripts/launcher.cjs) asks the
// running supervisor, which loads the configuration seen from here and merges the listing
// (POST /api/cli/list). Anything unusual (no supervisor, another version, configuration
// warnings, an error) resolves false and the full CLI answers, exactly as before. Bundled
// with start.ts into dist/quick.cjs: no Effect here, that is the point (docs/benchmarks.md).
// the types only (erased by the build): the request and answer as the API declares them
import type { ListAnswer, ListRequest } from "../api/Api.js"
import { VERSION } from "../domain/version.js"
import { definedEnv, post, readAll } from "./request.js"

type Answer = typeof ListAnswer.Encoded

const isAnswer = (value: unknown): value is Answer =>
  typeof value === "object" &&
  value !== null &&
  "version" in value &&
  "entries" in value &&
  (value.entries === null || Array.isArray(value.entries))

const parse = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Prints the listing and resolves true, or resolves false (nothing printed) for the CLI to answer. */
export const quickList = async (): Promise<boolean> => {
  const request: typeof ListRequest.Encoded = { cwd: process.cwd(), env: definedEnv() }
  const response = await post("/api/cli/list", request)
  if (response === undefined) return false
  const answer = parse(await readAll(response))
  if (response.status !== 200 || !isAnswer(answer)) return false
  if (answer.version !== VERSION || answer.entries === null) return false
  // sorted by the supervisor, in the order the CLI uses (src/domain/idOrder.ts)
  process.stdout.write(`${JSON.stringify(answer.entries, null, 2)}\n`)
  return true
}
