import { Effect, Either, Option } from "effect"
import { UsageError } from "../control/selection.js"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { READY_KEYS, type ReadyKey } from "../domain/DaemonOptions.js"
import { isHttpUrl } from "../domain/Readiness.js"
import { hasTemplate, templateProblem } from "../domain/Template.js"
import { type ReadyFlags, readyOptions } from "./options.js"

// Readiness overrides (`--delay --output --http --ready-port --cmd`, defined in options.ts): flags
// that replace the configured ready checks of the daemons a command starts.

/** The name of each flag as the help shows it (`--port` is kept as `--ready-port`'s alias). */
const FLAG_NAMES: { readonly [K in keyof ReadyFlags]: string } = {
  delay: "--delay",
  output: "--output",
  http: "--http",
  port: "--ready-port",
  cmd: "--cmd",
}

/** The key a flag replaces: `--delay` sets `ready_delay` (a flag without its key does not compile). */
const readyKey = (flag: keyof ReadyFlags): ReadyKey => `ready_${flag}`

/** The readiness field a flag sets (in the decoded form), or a usage error saying why not. */
const readyField = (flag: keyof ReadyFlags, value: string | number): Either.Either<unknown, UsageError> => {
  const fail = (why: string) =>
    Either.left(new UsageError({ message: `${FLAG_NAMES[flag]} ${JSON.stringify(value)}: ${why}` }))
  if (flag === "delay")
    return typeof value === "number" && Number.isFinite(value) && value >= 0
      ? Either.right(value)
      : fail("expected a number of seconds, 0 or more")
  const text = String(value)
  const problem = templateProblem(text)
  if (problem) return fail(problem)
  switch (flag) {
    case "output":
      if (!hasTemplate(text)) {
        try {
          new RegExp(text)
        } catch {
          return fail("invalid regular expression")
        }
      }
      return Either.right({ pattern: text })
    case "http":
      return isHttpUrl(text)
        ? Either.right({ url: text.trim(), status: [] })
        : fail("expected an http:// or https:// URL")
    case "port": {
      if (hasTemplate(text)) return Either.right({ port: text })
      const port = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
      return Number.isInteger(port) && port >= 1 && port <= 65535
        ? Either.right({ port })
        : fail('expected a TCP port number (1-65535) or a template such as "{{ daemons.db.port }}"')
    }
    case "cmd":
      return text.trim() === "" ? fail("expected a shell command") : Either.right({ run: text })
  }
}

/**
 * The readiness fields the flags set, or None without flags. Any flag replaces every
 * configured check of the started daemons (so `--delay` alone counts, and `--http` alone is
 * not combined with a configured `ready_output`).
 */
export const readyOverrides = (flags: ReadyFlags) =>
  Effect.gen(function* () {
    const out: Record<string, unknown> = {}
    for (const flag of Object.keys(readyOptions) as Array<keyof ReadyFlags>) {
      const value = flags[flag]
      if (Option.isSome(value)) out[readyKey(flag)] = yield* readyField(flag, value.value)
    }
    return Object.keys(out).length === 0 ? Option.none() : Option.some(out)
  })

export const withReadiness = (def: DaemonDefinition, overrides: Option.Option<Record<string, unknown>>) =>
  Option.match(overrides, {
    onNone: () => def,
    onSome: (fields): DaemonDefinition => {
      const kept = Object.fromEntries(
        Object.entries(def.config).filter(([k]) => !(READY_KEYS as ReadonlyArray<string>).includes(k)),
      )
      return { ...def, config: new DaemonConfig({ ...(kept as unknown as DaemonConfig), ...fields }) }
    },
  })
