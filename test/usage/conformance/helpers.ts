import { Effect } from "effect"
import { expect } from "vitest"
import { formatUsageProblems, parseSpecString } from "../../../src/usage/index.js"
import type { Command, Spec } from "../../../src/usage/model.js"
import { writeSpec } from "../../../src/usage/writer.js"

/**
 * Conformance helpers: a spec usage accepts must parse, and parse back to the same model after
 * `spec fmt` (writeSpec); one usage rejects must fail with a message saying what and where.
 */

export const kdl = (...lines: ReadonlyArray<string>): string => `${lines.join("\n")}\n`

/** Parses `text` (it must be accepted), checks the fmt round trip, and returns the model. */
export const accepts = (text: string): Spec => {
  const result = Effect.runSync(Effect.either(parseSpecString(text, { filename: "spec.kdl" })))
  if (result._tag === "Left") throw new Error(`rejected:\n${formatUsageProblems(result.left.problems)}`)
  const spec = result.right
  const written = writeSpec(spec)
  const again = Effect.runSync(Effect.either(parseSpecString(written, { filename: "fmt.kdl" })))
  if (again._tag === "Left")
    throw new Error(`fmt output rejected:\n${formatUsageProblems(again.left.problems)}\n---\n${written}`)
  expect(again.right).toEqual(spec)
  expect(writeSpec(again.right)).toBe(written)
  return spec
}

/** The problems of a rejected spec, each `spec.kdl:LINE: path: node: message`. */
export const rejects = (text: string): Array<string> => {
  const result = Effect.runSync(Effect.either(parseSpecString(text, { filename: "spec.kdl" })))
  if (result._tag === "Right") throw new Error("accepted a spec that should be rejected")
  return formatUsageProblems(result.left.problems).split("\n")
}

export const at = (spec: Spec, ...path: ReadonlyArray<string>): Command => {
  let cmd = spec.root
  for (const name of path) {
    const next = cmd.subcommands.find((c) => c.name === name)
    if (next === undefined) throw new Error(`no command ${path.join(" ")}`)
    cmd = next
  }
  return cmd
}
