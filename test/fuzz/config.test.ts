/**
 * TOML configurations, valid (generated from the schema's shape) and broken (mutated bytes, wrong
 * types, unknown keys, huge values): the loader returns a config or a ConfigInvalid naming the
 * file, never throws and never dies.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Cause, Effect, Exit } from "effect"
import fc from "fast-check"
import { stringify } from "smol-toml"
import { afterAll, describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/Loader.js"
import { makeSandbox } from "../config/helpers.js"
import { STACK_LINE } from "../e2e/harness.js"
import { params, TIMEOUT, tried } from "./fuzz.js"
import { configValue, mutate, wrongValue } from "./tomlArbitrary.js"

const sb = makeSandbox()
afterAll(() => sb.cleanup())
const project = sb.path("proj")
const file = join(project, "supervisor.toml")
sb.mkdir("proj")

const toToml = (value: Record<string, unknown>): string => {
  try {
    return stringify(value)
  } catch {
    // NaN in an array, a nested undefined: what smol-toml cannot write is written as a string
    return stringify(JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))))
  }
}

let lastProblems = ""
/** Loads `text` as the project's file: "config", or "invalid" after checking the typed error. */
const load = async (suite: string, text: string | Uint8Array): Promise<"config" | "invalid"> => {
  tried(suite)
  writeFileSync(file, text)
  const exit = await Effect.runPromiseExit(
    loadConfig({ cwd: project, env: sb.env }).pipe(Effect.provide(NodeFileSystem.layer)),
  )
  if (Exit.isSuccess(exit)) return "config"
  expect(Cause.isDie(exit.cause), Cause.pretty(exit.cause)).toBe(false)
  const errors = [...Cause.failures(exit.cause)]
  expect(errors.map((e) => e._tag)).toEqual(["ConfigInvalid"])
  const [invalid] = errors
  expect(invalid!.problems.length).toBeGreaterThan(0)
  for (const p of invalid!.problems) {
    expect(typeof p.file).toBe("string")
    expect(p.message.length).toBeGreaterThan(0)
  }
  expect(invalid!.message).not.toMatch(STACK_LINE)
  lastProblems = invalid!.message
  return "invalid"
}

const outcomes = { config: 0, invalid: 0 }
afterAll(() => console.log(`fuzz: configurations: ${outcomes.config} loaded, ${outcomes.invalid} refused`))
const count = (o: "config" | "invalid") => {
  outcomes[o]++
}

describe("configuration loader (fuzz)", () => {
  it(
    "a configuration of the schema's shape loads or is refused with typed problems",
    async () => {
      await fc.assert(
        fc.asyncProperty(configValue, async (value) =>
          count(await load("TOML of the schema's shape", toToml(value))),
        ),
        params(40),
      )
    },
    TIMEOUT,
  )

  it(
    "plain daemons load, with their names",
    async () => {
      const daemon = fc.record(
        {
          run: fc.constantFrom("sleep 10", "exec node server.js", "echo 'hi' && sleep 1"),
          retry: fc.oneof(fc.nat(10), fc.boolean()),
          ready_delay: fc.constantFrom("0s", "500ms", "1m 30s", 2),
          watch_mode: fc.constantFrom("native", "poll", "auto"),
          env: fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), fc.string({ maxLength: 20 }), {
            maxKeys: 3,
          }),
        },
        { requiredKeys: ["run"] },
      )
      const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,3})?$/), {
        minLength: 1,
        maxLength: 4,
      })
      await fc.assert(
        fc.asyncProperty(
          names.chain((ns) =>
            fc.tuple(fc.constant(ns), fc.array(daemon, { minLength: ns.length, maxLength: ns.length })),
          ),
          async ([ns, ds]) => {
            const toml = toToml({ daemons: Object.fromEntries(ns.map((n, i) => [n, ds[i]])) })
            expect(await load("valid TOML", toml), `${toml}\n${lastProblems}`).toBe("config")
            count("config")
          },
        ),
        params(40),
      )
    },
    TIMEOUT,
  )

  it(
    "wrong types, unknown keys and huge values are typed problems",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          configValue,
          fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          fc.option(
            fc.oneof(
              fc.string({ maxLength: 10 }),
              fc.constantFrom("run", "port", "depends", "__proto__", "constructor"),
            ),
            { nil: undefined },
          ),
          wrongValue,
          async (value, picks, key, wrong) =>
            count(await load("TOML with a wrong value", toToml(mutate(value, picks, key, wrong)))),
        ),
        params(40),
      )
    },
    TIMEOUT,
  )

  it(
    "mutated bytes are a syntax error or a typed problem",
    async () => {
      const edit = fc.record({
        at: fc.nat(),
        op: fc.constantFrom("flip", "insert", "delete", "truncate"),
        byte: fc.integer({ min: 0, max: 255 }),
      })
      await fc.assert(
        fc.asyncProperty(
          configValue,
          fc.array(edit, { minLength: 1, maxLength: 6 }),
          async (value, edits) => {
            let bytes = Buffer.from(toToml(value))
            for (const { at, op, byte } of edits) {
              const i = bytes.length === 0 ? 0 : at % bytes.length
              bytes =
                op === "flip"
                  ? Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i + 1)])
                  : op === "insert"
                    ? Buffer.concat([bytes.subarray(0, i), Buffer.from([byte]), bytes.subarray(i)])
                    : op === "delete"
                      ? Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)])
                      : bytes.subarray(0, i)
            }
            count(await load("TOML with mutated bytes", bytes))
          },
        ),
        params(80),
      )
    },
    TIMEOUT,
  )

  it(
    "huge and deep documents are refused or loaded, never a crash",
    async () => {
      const huge = [
        `a = ${"[".repeat(50_000)}${"]".repeat(50_000)}\n`,
        `x = ${"{ a = ".repeat(20_000)}1${" }".repeat(20_000)}\n`,
        `[daemons.a]\nrun = "${"x".repeat(5_000_000)}"\n`,
        Array.from({ length: 3000 }, (_, i) => `[daemons.d${i}]\nrun = "sleep 1"\n`).join(""),
        `[daemons.a]\nrun = "sleep 1"\nretry = 99999999999999999999999\n`,
        `[daemons.a]\nrun = "sleep 1"\nready_delay = "${"9".repeat(400)}y"\n`,
        `[daemons.a]\nrun = "sleep 1"\nport = inf\ncpu_limit = nan\n`,
        `[daemons.a]\nrun = "sleep 1"\ndepends = [${Array.from({ length: 2000 }, (_, i) => `"d${i}"`).join(",")}]\n`,
        `[daemons.${"n".repeat(10_000)}]\nrun = "sleep 1"\n`,
        `\uFEFF[daemons.a]\nrun = "\u0000"\n`,
      ]
      for (const text of huge) count(await load("huge or deep TOML", text))
    },
    TIMEOUT,
  )
})
