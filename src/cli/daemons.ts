import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { SupervisorClient } from "./client.js"
import { all, force, group, ids, json, quiet } from "./options.js"
import { cyan, dim, green, printJson } from "./output.js"
import { checkBumpApplies, portOptions, portOverrides, withPorts } from "./portFlags.js"
import { startWithProgress } from "./progress.js"
import { readyOptions, readyOverrides, withReadiness } from "./readyFlags.js"
import { definitionsFor, knownDaemons, selectIds } from "./selection.js"
import { handleErrors, loadHere, withClient, withSupervisor } from "./session.js"
import { reportStart } from "./startReport.js"

export const startCommand = Command.make(
  "start",
  { ids, all, group, force, quiet, json, ...readyOptions, ...portOptions },
  (o) =>
    handleErrors(
      Effect.gen(function* () {
        const overrides = yield* readyOverrides(o)
        const ports = yield* portOverrides(o)
        const config = yield* loadHere(true)
        yield* withClient(
          config,
          Effect.gen(function* () {
            const known = yield* knownDaemons
            const selected = yield* selectIds(config, known, o, () => Object.keys(config.daemons))
            const defs = (yield* definitionsFor(selected, config)).map((d) =>
              withPorts(withReadiness(d, overrides), ports),
            )
            yield* checkBumpApplies(defs, ports)
            yield* reportStart(yield* startWithProgress(defs, o, config, known), o)
          }),
        )
      }),
    ),
).pipe(Command.withDescription("start daemons and wait until they are ready"))

const stopIds = (selected: ReadonlyArray<string>, asJson: boolean, quietFlag: boolean) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const results = yield* c.api.cli.stop({ payload: { ids: selected } }).pipe(Effect.orDie)
    if (asJson) return yield* printJson(results)
    if (quietFlag) return
    for (const r of results) {
      yield* Console.log(
        r.was_running ? `${green("✓")} ${cyan(r.id)} stopped` : `${dim("•")} ${cyan(r.id)} was not running`,
      )
    }
  })

export const stopCommand = Command.make("stop", { ids, all, group, quiet, json }, (o) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const known = yield* knownDaemons
      const running = () =>
        known
          .filter((k) => ["running", "waiting", "stopping"].includes(k.status.type))
          .map((k) => k.id.qualified)
      const selected = yield* selectIds(config, known, o, running)
      const unknown = selected.filter((id) => !known.some((k) => k.id.qualified === id))
      const present = selected.filter((id) => !unknown.includes(id))
      for (const id of unknown)
        if (!o.quiet && !o.json) yield* Console.log(`${dim("•")} ${cyan(id)} was not running`)
      if (present.length > 0) yield* stopIds(present, o.json, o.quiet)
      else if (o.json) yield* printJson(unknown.map((id) => ({ id, was_running: false })))
    }),
  ),
).pipe(Command.withDescription("stop daemons (their whole process group)"))

export const restartCommand = Command.make("restart", { ids, all, group, quiet, json }, (o) =>
  withSupervisor(true, (config) =>
    Effect.gen(function* () {
      const known = yield* knownDaemons
      const selected = yield* selectIds(config, known, o, () => Object.keys(config.daemons))
      const defs = yield* definitionsFor(selected, config)
      yield* reportStart(yield* startWithProgress(defs, { ...o, force: true }, config, known), o)
    }),
  ),
).pipe(Command.withDescription("restart daemons and wait until they are ready"))

const toggle = (name: "enable" | "disable") =>
  Command.make(name, { ids, json }, (o) =>
    withSupervisor(false, (config) =>
      Effect.gen(function* () {
        const c = yield* SupervisorClient
        const known = yield* knownDaemons
        const selected = yield* selectIds(
          config,
          known,
          { ids: o.ids, all: false, group: Option.none() },
          () => [],
        )
        const defs = yield* definitionsFor(selected, config)
        yield* c.api.cli
          .toggle({ payload: { definitions: defs, enabled: name === "enable" } })
          .pipe(Effect.orDie)
        if (o.json) return yield* printJson(selected.map((id) => ({ id, enabled: name === "enable" })))
        for (const id of selected) yield* Console.log(`${green("✓")} ${cyan(id)} ${name}d`)
      }),
    ),
  ).pipe(
    Command.withDescription(
      name === "enable"
        ? "allow daemons to be started again"
        : "refuse to start daemons (a running one keeps running)",
    ),
  )
export const enableCommand = toggle("enable")
export const disableCommand = toggle("disable")
