import { Console, Effect, Fiber, Schedule } from "effect"
import { configDefinitions, dependencyClosure } from "../config/definitions.js"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { SupervisorClient } from "./client.js"
import { type Waiting, waitingLine } from "./startText.js"
import { waitingList } from "./waiting.js"

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * Progress while a start request waits for readiness. On a terminal (stderr): a spinner line
 * per daemon naming what it waits for, ticked off as the supervisor reports it running (polled),
 * erased before the outcome lines. Otherwise one line per daemon on stdout when it starts
 * waiting, a transcript of state changes that the outcome lines continue.
 */
const withProgress = <A, E, R>(waiting: ReadonlyArray<Waiting>, run: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    if (waiting.length === 0) return yield* run
    if (process.stderr.isTTY !== true) {
      for (const w of waiting) yield* Console.log(waitingLine(w))
      return yield* run
    }
    const c = yield* SupervisorClient
    const done = new Set<string>()
    let drawn = 0
    let frame = 0
    const width = () => Math.max(20, (process.stderr.columns || 80) - 1)
    const clip = (s: string) => (s.length > width() ? `${s.slice(0, width() - 1)}…` : s)
    const draw = Effect.sync(() => {
      let out = drawn > 0 ? `\x1b[${drawn}A` : ""
      for (const w of waiting) {
        const line = done.has(w.id)
          ? `✓ ${w.id} ready`
          : `${SPINNER[frame % SPINNER.length]} ${w.id} waiting for ${w.what}`
        out += `\r\x1b[2K${clip(line)}\n`
      }
      frame++
      drawn = waiting.length
      process.stderr.write(out)
    })
    const erase = Effect.sync(() => {
      if (drawn > 0) process.stderr.write(`\x1b[${drawn}A\x1b[0J`)
      drawn = 0
    })
    const poll = c.api.daemons.list().pipe(
      Effect.tap((entries) =>
        Effect.sync(() => {
          for (const e of entries) if (e.status.type === "running") done.add(e.id.qualified)
        }),
      ),
      Effect.ignore,
    )
    const spinner = yield* Effect.fork(Effect.repeat(draw, Schedule.spaced("80 millis")))
    const poller = yield* Effect.fork(
      Effect.sleep("300 millis").pipe(Effect.zipRight(Effect.repeat(poll, Schedule.spaced("300 millis")))),
    )
    return yield* run.pipe(
      Effect.ensuring(
        Fiber.interrupt(spinner).pipe(Effect.zipRight(Fiber.interrupt(poller)), Effect.zipRight(erase)),
      ),
    )
  })

/** Sends the start request, with progress unless the output must stay machine-readable or quiet. */
export const startWithProgress = (
  defs: ReadonlyArray<DaemonDefinition>,
  options: { readonly force: boolean; readonly json: boolean; readonly quiet: boolean },
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
) => {
  const dependencies = dependencyClosure(defs, configDefinitions(config))
  const request = Effect.flatMap(SupervisorClient, (c) =>
    c.api.cli.start({ payload: { definitions: defs, dependencies, force: options.force } }),
  ).pipe(Effect.orDie)
  if (options.json || options.quiet) return request
  return Effect.flatMap(SupervisorClient, (c) => c.api.cli.disabled()).pipe(
    Effect.orDie,
    Effect.flatMap((disabled) =>
      withProgress(waitingList(defs, dependencies, options.force, config, known, disabled.ids), request),
    ),
  )
}
