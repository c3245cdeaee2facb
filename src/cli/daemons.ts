import * as nodePath from "node:path"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Fiber, Option, Schedule } from "effect"
import type { ApiDaemonEntry } from "../domain/ApiDaemonEntry.js"
import { DaemonConfig } from "../domain/DaemonConfig.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { DaemonId, toIdObject } from "../domain/DaemonId.js"
import { nameProblem } from "../domain/Name.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { hasTemplate, templateProblem } from "../domain/Template.js"
import { describeChecks, readinessChecks } from "../supervisor/readiness/plan.js"
import { renderChecks } from "../supervisor/readiness/template.js"
import { SupervisorClient } from "./client.js"
import { cyan, dim, ExitCode, exitWith, green, printJson, red, yellow } from "./output.js"
import {
  configDefinitions,
  currentNamespace,
  rejectFlags,
  resolveId,
  UnknownDaemon,
  UsageError,
} from "./resolve.js"
import { handleErrors, loadHere, withClient } from "./session.js"
import { formatUptime, renderTable } from "./table.js"

const json = Options.boolean("json").pipe(Options.withDescription("print machine-readable JSON"))
const ids = Args.text({ name: "id" }).pipe(
  Args.withDescription("daemon IDs: short names or namespace/name"),
  Args.repeated,
)
const all = Options.boolean("all").pipe(Options.withAlias("a"), Options.withDescription("every daemon"))
const group = Options.text("group").pipe(
  Options.withAlias("g"),
  Options.withDescription("the daemons of a group"),
  Options.optional,
)
const force = Options.boolean("force").pipe(
  Options.withAlias("f"),
  Options.withDescription("restart it if it is running"),
)
const quiet = Options.boolean("quiet").pipe(
  Options.withAlias("q"),
  Options.withDescription("print nothing on success"),
)

const knownDaemons = Effect.flatMap(SupervisorClient, (c) => c.api.daemons.list()).pipe(Effect.orDie)

/** The IDs a command acts on: explicit IDs, a group, or --all (`allIds`). */
const selectIds = (
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
  input: {
    readonly ids: ReadonlyArray<string>
    readonly all: boolean
    readonly group: Option.Option<string>
  },
  allIds: () => ReadonlyArray<string>,
) =>
  Effect.gen(function* () {
    yield* rejectFlags(input.ids)
    if (input.all) return [...allIds()]
    const out: Array<string> = []
    if (Option.isSome(input.group)) {
      const g = config.groups[input.group.value]
      if (!g) {
        const names = Object.keys(config.groups)
        return yield* new UnknownDaemon({
          message: `no group named ${input.group.value}${names.length ? `; groups: ${names.join(", ")}` : ""}`,
        })
      }
      const present = new Set([...Object.keys(config.daemons), ...known.map((k) => k.id.qualified)])
      const missing = g.daemons.filter((d) => !present.has(d))
      if (missing.length > 0) {
        return yield* new UnknownDaemon({
          message: `group ${input.group.value} names ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not configured (${g.source})`,
        })
      }
      out.push(...g.daemons)
    }
    for (const id of input.ids) out.push(yield* resolveId(id, config, known))
    if (out.length === 0) {
      return yield* new UnknownDaemon({ message: "name at least one daemon, or use --all or --group" })
    }
    return [...new Set(out)]
  })

const outcomeLine = (o: StartOutcome): string => {
  switch (o._tag) {
    case "Ready":
      return `${green("✓")} ${cyan(o.id)} is running ${dim(`(pid ${o.pid})`)}`
    case "AlreadyRunning":
      return `${green("•")} ${cyan(o.id)} is already running${o.pid ? dim(` (pid ${o.pid})`) : ""}`
    case "Completed":
      return `${green("✓")} ${cyan(o.id)} ran to completion (exit 0)`
    case "Disabled":
      return `${red("✗")} ${cyan(o.id)} is disabled; run \`supervisor enable ${o.id}\` first`
    case "Interrupted":
      return `${yellow("•")} ${cyan(o.id)} was stopped while starting`
    case "StartFailed":
      return [
        `${red("✗")} ${cyan(o.id)} failed to start: ${o.message}`,
        ...(o.output.length ? [dim("  last output:"), ...o.output.map((l) => `    ${l}`)] : []),
      ].join("\n")
  }
}
const outcomeStatus = (outcomes: ReadonlyArray<StartOutcome>): number =>
  outcomes.reduce((code, o) => {
    if (o._tag === "StartFailed") return Math.max(code, o.cli_status)
    if (o._tag === "Disabled" || o._tag === "Interrupted") return Math.max(code, ExitCode.failure)
    return code
  }, 0)

const reportStart = (outcomes: ReadonlyArray<StartOutcome>, options: { json: boolean; quiet: boolean }) =>
  Effect.gen(function* () {
    const code = outcomeStatus(outcomes)
    if (options.json) yield* printJson(outcomes)
    else {
      for (const o of outcomes) {
        if (options.quiet && code === 0) continue
        yield* (
          o._tag === "StartFailed" || o._tag === "Disabled" || o._tag === "Interrupted"
            ? Console.error
            : Console.log
        )(outcomeLine(o))
      }
      if (!options.quiet && code === 0 && outcomes.some((o) => o._tag === "Ready")) {
        const first = outcomes.find((o) => o._tag === "Ready")!.id
        yield* Console.log(
          dim(
            `logs: supervisor logs ${first} -f    status: supervisor list    stop: supervisor stop ${first}`,
          ),
        )
      }
    }
    if (code !== 0) yield* exitWith(code)
  })

// ---------------------------------------------------------------------------
// Readiness overrides (`--delay --output --http --port --cmd`) and progress.
// ---------------------------------------------------------------------------

const readyOptions = {
  delay: Options.float("delay").pipe(
    Options.withDescription("ready after this many seconds (replaces the configured ready checks)"),
    Options.optional,
  ),
  output: Options.text("output").pipe(
    Options.withDescription("ready when an output line matches this regex (replaces the configured checks)"),
    Options.optional,
  ),
  http: Options.text("http").pipe(
    Options.withDescription("ready when this URL answers 2xx (replaces the configured checks)"),
    Options.optional,
  ),
  port: Options.text("port").pipe(
    Options.withDescription("ready when this TCP port accepts connections (replaces the configured checks)"),
    Options.optional,
  ),
  cmd: Options.text("cmd").pipe(
    Options.withDescription("ready when this shell command exits 0 (replaces the configured checks)"),
    Options.optional,
  ),
}
type ReadyFlags = { readonly [K in keyof typeof readyOptions]: Option.Option<string | number> }

const READY_KEYS = ["ready_delay", "ready_output", "ready_http", "ready_port", "ready_cmd"] as const
const FLAG_KEYS = {
  delay: "ready_delay",
  output: "ready_output",
  http: "ready_http",
  port: "ready_port",
  cmd: "ready_cmd",
} as const

/** The readiness field a flag sets (in the decoded form), or a usage error saying why not. */
const readyField = (flag: keyof ReadyFlags, value: string | number): Either.Either<unknown, UsageError> => {
  const fail = (why: string) =>
    Either.left(new UsageError({ message: `--${flag} ${JSON.stringify(value)}: ${why}` }))
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
      return /^https?:\/\//i.test(text.trim())
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
const readyOverrides = (flags: ReadyFlags) =>
  Effect.gen(function* () {
    const out: Record<string, unknown> = {}
    for (const flag of Object.keys(FLAG_KEYS) as Array<keyof ReadyFlags>) {
      const value = flags[flag]
      if (Option.isSome(value)) out[FLAG_KEYS[flag]] = yield* readyField(flag, value.value)
    }
    return Object.keys(out).length === 0 ? Option.none() : Option.some(out)
  })

const withReadiness = (def: DaemonDefinition, overrides: Option.Option<Record<string, unknown>>) =>
  Option.match(overrides, {
    onNone: () => def,
    onSome: (fields): DaemonDefinition => {
      const kept = Object.fromEntries(
        Object.entries(def.config).filter(([k]) => !(READY_KEYS as ReadonlyArray<string>).includes(k)),
      )
      return { ...def, config: new DaemonConfig({ ...(kept as unknown as DaemonConfig), ...fields }) }
    },
  })

/** What a start waits on, in words; templates rendered with the ports the CLI can see. */
const waitingFor = (def: DaemonDefinition, config: ResolvedConfig, known: ReadonlyArray<ApiDaemonEntry>) => {
  const checks = readinessChecks(def.config)
  const defs = configDefinitions(config)
  const rendered = renderChecks(checks, def.id.namespace, (id) => {
    if (id === def.id.qualified) return { port: def.config.port?.expect[0] }
    const d = defs.get(id)
    if (d) return { port: d.config.port?.expect[0] }
    const k = known.find((e) => e.id.qualified === id)
    return k ? { port: k.resolved_port[0] } : undefined
  })
  return describeChecks(Either.getOrElse(rendered, () => checks))
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * Progress while a start request waits for readiness. On a terminal (stderr): a spinner line
 * per daemon naming what it waits for, ticked off as the supervisor reports it running (polled),
 * erased before the outcome lines. Otherwise one line per daemon on stdout when it starts
 * waiting, a transcript of state changes that the outcome lines continue.
 */
const withProgress = <A, E, R>(
  waiting: ReadonlyArray<{ readonly id: string; readonly what: string }>,
  run: Effect.Effect<A, E, R>,
) =>
  Effect.gen(function* () {
    if (waiting.length === 0) return yield* run
    if (process.stderr.isTTY !== true) {
      for (const w of waiting) yield* Console.log(`${w.id} waiting for ${w.what}`)
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

const isActiveEntry = (e: ApiDaemonEntry) => ["running", "waiting", "stopping"].includes(e.status.type)

/** Sends the start request, with progress unless the output must stay machine-readable or quiet. */
const startWithProgress = (
  defs: ReadonlyArray<DaemonDefinition>,
  options: { readonly force: boolean; readonly json: boolean; readonly quiet: boolean },
  config: ResolvedConfig,
  known: ReadonlyArray<ApiDaemonEntry>,
) => {
  const request = startDefinitions(defs, options.force)
  if (options.json || options.quiet) return request
  const waiting = defs
    .filter((d) => options.force || !known.some((k) => k.id.qualified === d.id.qualified && isActiveEntry(k)))
    .map((d) => ({ id: d.id.qualified, what: waitingFor(d, config, known) }))
  return withProgress(waiting, request)
}

const startDefinitions = (defs: ReadonlyArray<DaemonDefinition>, force: boolean) =>
  Effect.flatMap(SupervisorClient, (c) => c.api.cli.start({ payload: { definitions: defs, force } })).pipe(
    Effect.orDie,
  )

/** Definitions for IDs: fresh from the configuration, else what the supervisor last ran. */
const definitionsFor = (ids: ReadonlyArray<string>, config: ResolvedConfig) =>
  Effect.gen(function* () {
    const fromConfig = configDefinitions(config)
    const c = yield* SupervisorClient
    return yield* Effect.forEach(ids, (id) => {
      const def = fromConfig.get(id)
      if (def) return Effect.succeed(def)
      return c.api.cli
        .definition({ payload: { id } })
        .pipe(
          Effect.mapError(
            () => new UnknownDaemon({ message: `no definition for ${id}: it is not configured here` }),
          ),
        )
    })
  })

export const startCommand = Command.make(
  "start",
  { ids, all, group, force, quiet, json, ...readyOptions },
  (o) =>
    handleErrors(
      Effect.gen(function* () {
        const overrides = yield* readyOverrides(o)
        const config = yield* loadHere(true)
        yield* withClient(
          config,
          Effect.gen(function* () {
            const known = yield* knownDaemons
            const selected = yield* selectIds(config, known, o, () => Object.keys(config.daemons))
            const defs = (yield* definitionsFor(selected, config)).map((d) => withReadiness(d, overrides))
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
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      yield* withClient(
        config,
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
      )
    }),
  ),
).pipe(Command.withDescription("stop daemons (their whole process group)"))

export const restartCommand = Command.make("restart", { ids, all, group, quiet, json }, (o) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(true)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const known = yield* knownDaemons
          const selected = yield* selectIds(config, known, o, () => Object.keys(config.daemons))
          const defs = yield* definitionsFor(selected, config)
          yield* reportStart(yield* startWithProgress(defs, { ...o, force: true }, config, known), o)
        }),
      )
    }),
  ),
).pipe(Command.withDescription("restart daemons and wait until they are ready"))

const toggle = (name: "enable" | "disable") =>
  Command.make(name, { ids, json }, (o) =>
    handleErrors(
      Effect.gen(function* () {
        const config = yield* loadHere(false)
        yield* withClient(
          config,
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
        )
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

/** Every daemon known to the supervisor, plus those configured here that it never ran. */
const listing = (config: ResolvedConfig) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const known = yield* knownDaemons
    const disabled = new Set((yield* c.api.cli.disabled()).ids)
    const seen = new Set(known.map((k) => k.id.qualified))
    const configured = [...configDefinitions(config).values()]
      .filter((d) => !seen.has(d.id.qualified))
      .map(
        (d): ApiDaemonEntry => ({
          id: d.id,
          title: d.id.name,
          pid: null,
          status: { type: disabled.has(d.id.qualified) ? "disabled" : "available" },
          dir: d.config.dir,
          cpu_percent: 0,
          memory_bytes: 0,
          uptime_secs: 0,
          proxy_url: null,
          slug: null,
          active_port: null,
          resolved_port: d.config.port?.expect ?? [],
          enabled: !disabled.has(d.id.qualified),
          adhoc: false,
          run: d.config.run,
          retry_count: 0,
          source: d.source,
        }),
      )
    return [...known, ...configured].sort((a, b) => a.id.qualified.localeCompare(b.id.qualified))
  }).pipe(Effect.orDie)

const statusColour = (t: string) =>
  t === "running"
    ? green(t)
    : t === "errored" || t === "failed"
      ? red(t)
      : t === "waiting" || t === "stopping"
        ? yellow(t)
        : dim(t)

export const listCommand = Command.make(
  "list",
  {
    json,
    status: Options.text("status").pipe(
      Options.withDescription("only daemons with this status"),
      Options.optional,
    ),
    namespace: Options.text("namespace").pipe(
      Options.withDescription("only this namespace"),
      Options.optional,
    ),
  },
  (o) =>
    handleErrors(
      Effect.gen(function* () {
        const config = yield* loadHere(false)
        yield* withClient(
          config,
          Effect.gen(function* () {
            const entries = (yield* listing(config)).filter(
              (e) =>
                Option.match(o.status, { onNone: () => true, onSome: (s) => e.status.type === s }) &&
                Option.match(o.namespace, { onNone: () => true, onSome: (n) => e.id.namespace === n }),
            )
            if (o.json) return yield* printJson(entries)
            if (entries.length === 0)
              return yield* Console.log(dim("no daemons (configure some in supervisor.toml)"))
            yield* Console.log(
              renderTable(
                ["ID", "STATUS", "PID", "UPTIME", "PORTS", "RUN"],
                entries.map((e) => [
                  cyan(e.id.qualified),
                  statusColour(e.status.type),
                  e.pid === null ? "-" : String(e.pid),
                  formatUptime(e.uptime_secs),
                  e.resolved_port.join(",") || "-",
                  e.run.length > 48 ? `${e.run.slice(0, 47)}…` : e.run,
                ]),
              ),
            )
          }),
        )
      }),
    ),
).pipe(Command.withDescription("list daemons with their status (alias: ls)"))

export const statusCommand = Command.make("status", { id: Args.text({ name: "id" }), json }, (o) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const entries = yield* listing(config)
          const id = yield* resolveId(o.id, config, entries)
          const e = entries.find((x) => x.id.qualified === id)!
          if (o.json) return yield* printJson(e)
          const rows: Array<[string, string]> = [
            ["status", statusColour(e.status.type) + (e.status.message ? dim(` (${e.status.message})`) : "")],
            ["pid", e.pid === null ? "-" : String(e.pid)],
            ["uptime", formatUptime(e.uptime_secs)],
            ["run", e.run],
            ["dir", e.dir],
            ["ports", e.resolved_port.join(", ") || "-"],
            ["enabled", e.enabled ? "yes" : "no"],
            ["retries", String(e.retry_count)],
            ["source", e.source ?? "(ad-hoc)"],
          ]
          if (e.status.exit_code !== undefined && e.status.exit_code !== null)
            rows.push(["exit code", String(e.status.exit_code)])
          if (e.status.signal) rows.push(["signal", e.status.signal])
          yield* Console.log(cyan(e.id.qualified))
          for (const [k, v] of rows) yield* Console.log(`  ${k.padEnd(10)} ${v}`)
        }),
      )
    }),
  ),
).pipe(Command.withDescription("show one daemon's status"))

const shellQuote = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`)

export const runCommand = Command.make(
  "run",
  {
    id: Args.text({ name: "id" }),
    command: Args.text({ name: "command" }).pipe(Args.repeated),
    ...readyOptions,
    force,
    json,
  },
  (o) =>
    handleErrors(
      Effect.gen(function* () {
        const overrides = yield* readyOverrides(o)
        const config = yield* loadHere(false)
        if (o.command.length === 0)
          return yield* new UnknownDaemon({
            message: "give the command after the ID: supervisor run ID -- CMD...",
          })
        const [ns, name] = o.id.includes("/")
          ? (o.id.split("/") as [string, string])
          : [currentNamespace(config), o.id]
        const problem = nameProblem(name) ?? nameProblem(ns)
        if (problem) return yield* new UnknownDaemon({ message: `invalid daemon ID ${o.id}: ${problem}` })
        const id = new DaemonId({ namespace: ns, name })
        const def = withReadiness(
          {
            id: toIdObject(id),
            config: new DaemonConfig({
              run: o.command.map(shellQuote).join(" "),
              dir: nodePath.resolve(process.cwd()),
            }),
            adhoc: true,
            source: null,
          },
          overrides,
        )
        yield* withClient(
          config,
          Effect.gen(function* () {
            const known = yield* knownDaemons
            const outcomes = yield* startWithProgress([def], { ...o, quiet: false }, config, known)
            yield* reportStart(outcomes, { json: o.json, quiet: false })
          }),
        )
      }),
    ),
).pipe(Command.withDescription("run an ad-hoc daemon that is in no config file: supervisor run ID -- CMD..."))

export const waitCommand = Command.make("wait", { id: Args.text({ name: "id" }), json }, (o) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const c = yield* SupervisorClient
          const id = yield* resolveId(o.id, config, yield* knownDaemons)
          const r = yield* c.api.cli.wait({ payload: { id } }).pipe(
            Effect.catchTag("DaemonNotFound", (e) => new UnknownDaemon({ message: e.message })),
            Effect.catchAll((e) =>
              "_tag" in e && e._tag === "UnknownDaemon" ? Effect.fail(e) : Effect.die(e),
            ),
          )
          if (o.json) yield* printJson(r)
          else
            yield* Console.log(
              `${cyan(id)} ${r.status}${r.exit_code !== null ? ` (exit ${r.exit_code})` : r.signal ? ` (${r.signal})` : ""}`,
            )
          const code = r.exit_code ?? (r.signal ? 128 + (signalNumber(r.signal) ?? 0) : 0)
          if (code !== 0) yield* exitWith(code)
        }),
      )
    }),
  ),
).pipe(Command.withDescription("wait until a daemon exits; exits with the daemon's exit code"))

const signalNumber = (name: string): number | undefined =>
  ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGTERM: 15 })[name]

export const cleanCommand = Command.make("clean", { json }, (o) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(false)
      yield* withClient(
        config,
        Effect.gen(function* () {
          const c = yield* SupervisorClient
          const r = yield* c.api.cli.clean({ payload: {} }).pipe(Effect.orDie)
          if (o.json) return yield* printJson(r)
          if (r.removed.length === 0) return yield* Console.log(dim("nothing to clean: no stopped daemons"))
          for (const id of r.removed) yield* Console.log(`${green("✓")} forgot ${cyan(id)}`)
        }),
      )
    }),
  ),
).pipe(Command.withDescription("forget daemons that are not running (and their logs)"))
