import { existsSync, readFileSync } from "node:fs"
import * as nodePath from "node:path"
import { Console, Effect, Option } from "effect"
import { addDaemon, declaredIds, findDaemon, removeDaemon } from "../../config/edit/daemonEdit.js"
import {
  checkEdit,
  DaemonEditRefused,
  readText,
  type Scope,
  scopeFile,
  writeAtomic,
} from "../../config/edit/daemonFile.js"
import type { NewDaemon, TomlValue } from "../../config/edit/daemonToml.js"
import { defaultLoadOptions, loadConfig } from "../../config/Loader.js"
import { UsageError } from "../../control/selection.js"
import { ConfiguredDaemons } from "../../domain/CliOutput.js"
import { nameProblem } from "../../domain/Name.js"
import type { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { closest } from "../../domain/suggest.js"
import { shellWord } from "../../shell/quote.js"
import type { AddOptions, RemoveOptions } from "../args/daemonsEdit.js"
import { dim, green, note, printJson, warn } from "../output.js"
import { portOverrides } from "../portOverrides.js"
import { runCommandWords } from "../runArgs.js"
import { handleErrors, loadHere } from "../session.js"
import { renderTable } from "../table.js"

const usage = (message: string) => new UsageError({ message })

/** The scope the flags name (at most one of them), the project's file by default. */
const scopeOf = (o: { project: boolean; local: boolean; global: boolean }) => {
  const named = (["project", "local", "global"] as const).filter((s) => o[s])
  return named.length > 1
    ? Effect.fail(usage(`--${named.join(" and --")}: give one of them (the file to edit)`))
    : Effect.succeed<Scope>(named[0] ?? "project")
}

/** A number as TOML writes it when the text is one, else the text (the loader then says why not). */
const numberOr = (s: string): TomlValue => (/^\s*-?\d+(\.\d+)?\s*$/.test(s) ? Number(s) : s)

/** `settings.supervisor.port_bump_attempts` seen from here; the default when the files cannot be read. */
const bumpAttempts = Effect.either(loadConfig(defaultLoadOptions())).pipe(
  Effect.map((loaded) =>
    loaded._tag === "Right" ? loaded.right.settings.supervisor.port_bump_attempts : 10,
  ),
)

/** The new daemon's keys, in the order of the specification's table, from the flags. */
const newDaemon = (o: AddOptions) =>
  Effect.gen(function* () {
    const problem = nameProblem(o.id)
    if (problem) return yield* usage(`invalid daemon name ${JSON.stringify(o.id)}: ${problem}`)
    const words = runCommandWords(o.command)
    if (Option.isSome(o.run) && words.length > 0)
      return yield* usage(`daemons add ${o.id}: give the command once, with --run or after --, not both`)
    const run = Option.isSome(o.run) ? o.run.value : words.map(shellWord).join(" ")
    if (run.trim() === "")
      return yield* usage(
        `daemons add ${o.id}: give the command the daemon runs: --run CMD, or after --: supervisor daemons add ${o.id} -- CMD ARGS...`,
      )
    const keys: Array<readonly [string, TomlValue]> = [["run", run]]
    const set = (key: string, value: Option.Option<TomlValue>) => {
      if (Option.isSome(value)) keys.push([key, value.value])
    }
    set("dir", o.dir)
    if (o.env.length > 0) {
      const env: Record<string, string> = {}
      for (const kv of o.env) {
        const eq = kv.indexOf("=")
        if (eq <= 0) return yield* usage(`--env ${JSON.stringify(kv)}: expected NAME=VALUE`)
        env[kv.slice(0, eq)] = kv.slice(eq + 1)
      }
      keys.push(["env", env])
    }
    set(
      "retry",
      Option.map(o.retry, (r) => (r === "true" ? true : r === "false" ? false : numberOr(r))),
    )
    set("instances", Option.map(o.instances, numberOr))
    const auto = [...o.auto, ...(o.autostart ? ["start"] : []), ...(o.autostop ? ["stop"] : [])]
    if (auto.length > 0) keys.push(["auto", [...new Set(auto)]])
    set("ready_delay", Option.map(o.readyDelay, numberOr))
    set("ready_output", o.readyOutput)
    set("ready_http", o.readyHttp)
    set("ready_port", Option.map(o.readyPort, numberOr))
    set("ready_cmd", o.readyCmd)
    if (o.depends.length > 0) keys.push(["depends", o.depends])
    if (o.watch.length > 0) keys.push(["watch", o.watch])
    // a bare --bump writes the attempts of settings.supervisor.port_bump_attempts, as pitchfork does
    const attempts = Option.isSome(o.bump) && o.bump.value === "" ? yield* bumpAttempts : 10
    const ports = yield* portOverrides({ expectedPort: o.port, bump: o.bump }, attempts, "--port")
    if (Option.isSome(ports.bump) && Option.isNone(ports.expect))
      return yield* usage("--bump needs the ports to shift: add --port")
    if (Option.isSome(ports.expect)) {
      const expect = ports.expect.value
      keys.push([
        "port",
        Option.isSome(ports.bump)
          ? { expect, bump: ports.bump.value }
          : expect.length === 1
            ? expect[0]!
            : expect,
      ])
    }
    if (o.bootStart) keys.push(["boot_start", true])
    if (Option.isSome(o.cron)) {
      const retrigger = Option.getOrUndefined(o.cronRetrigger)
      keys.push([
        "cron",
        retrigger === undefined && !o.cronImmediate
          ? o.cron.value
          : {
              schedule: o.cron.value,
              ...(retrigger === undefined ? {} : { retrigger }),
              ...(o.cronImmediate ? { immediate: true } : {}),
            },
      ])
    } else if (Option.isSome(o.cronRetrigger) || o.cronImmediate)
      return yield* usage("--cron-retrigger and --cron-immediate need --cron SCHEDULE")
    set("memory_limit", o.memoryLimit)
    set("cpu_limit", Option.map(o.cpuLimit, numberOr))
    const hooks: Array<readonly [string, string]> = []
    for (const [key, value] of [
      ["on_ready", o.onReady],
      ["on_fail", o.onFail],
      ["on_retry", o.onRetry],
      ["on_stop", o.onStop],
      ["on_exit", o.onExit],
    ] as const)
      if (Option.isSome(value)) hooks.push([key, value.value])
    return { id: o.id, keys, hooks } satisfies NewDaemon
  })

/** `supervisor daemons add ID --run CMD ...`: the daemon's table appended to the file. */
export const add = (o: AddOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const daemon = yield* newDaemon(o)
      const options = defaultLoadOptions()
      const file = scopeFile(yield* scopeOf(o), options)
      const before = yield* readText(file)
      const edited = addDaemon(before, daemon)
      if ("problem" in edited)
        return yield* new DaemonEditRefused({
          file,
          ...lineOf(edited.problem),
          ...(edited.problem.kind === "syntax" ? {} : { key: `daemons.${o.id}` }),
          problem: edited.problem.message,
        })
      const config = yield* checkEdit(options, file, existsSync(file) ? before : undefined, edited.text)
      // the same daemon already set by another file (`.local`, `.config/`) would be merged into
      const merged = Object.values(config?.daemons ?? {}).find(
        (d) => d.id.name === o.id && d.sources.includes(file) && d.sources.length > 1,
      )
      if (merged !== undefined) {
        const other = merged.sources.find((s) => s !== file)!
        return yield* new DaemonEditRefused({
          file: other,
          ...lineIn(other, o.id),
          key: `daemons.${o.id}`,
          problem: `daemon ${merged.id.qualified} is already declared in this file`,
          hint: `edit it there, or remove it first with \`supervisor daemons remove ${o.id}\` and the flag of that file`,
        })
      }
      yield* writeAtomic(file, edited.text)
      // pitchfork's `added ns/web to FILE`: the qualified ID, which the other commands take anywhere
      yield* Console.log(`${green("added")} ${qualified(config, file, o.id)} ${dim(`to ${file}`)}`)
    }),
  )

/** `ns/id` with the namespace of `file` in `config`, or `id` when the configuration did not load. */
const qualified = (config: ResolvedConfig | undefined, file: string, id: string) => {
  const namespace = config?.files.find((f) => f.path === file)?.namespace
  return namespace === undefined ? id : `${namespace}/${id}`
}

const lineOf = (p: { readonly line?: number }) => (p.line === undefined ? {} : { line: p.line })

/** `{ line }` of daemon `id` in `file` (for a message), or nothing. */
const lineIn = (file: string, id: string) => {
  let text = ""
  try {
    text = readFileSync(file, "utf8")
  } catch {
    // unreadable: the message names the file without a line
  }
  const at = findDaemon(text, id)
  return at === undefined ? {} : { line: at }
}

/** `supervisor daemons remove ID`: the daemon's tables removed from the file. */
export const remove = (o: RemoveOptions) =>
  handleErrors(
    Effect.gen(function* () {
      const options = defaultLoadOptions()
      const scope = yield* scopeOf(o)
      const file = scopeFile(scope, options)
      const before = yield* readText(file)
      const edited = removeDaemon(before, o.id)
      if ("problem" in edited) {
        if (edited.problem.kind === "syntax")
          return yield* new DaemonEditRefused({
            file,
            ...lineOf(edited.problem),
            problem: edited.problem.message,
          })
        // as pitchfork: a daemon the file does not declare is a warning (exit 0), nothing to remove
        const why = yield* notHere(file, before, o.id)
        return yield* warn(why.message)
      }
      const config = yield* checkEdit(options, file, before, edited.text)
      yield* writeAtomic(file, edited.text)
      yield* Console.log(`${green("removed")} ${qualified(config, file, o.id)} ${dim(`from ${file}`)}`)
    }),
  )

/** Why `remove` has nothing to remove: the id is in another file (which, and its flag), or nowhere (the closest ids). */
const notHere = (file: string, text: string, id: string) =>
  Effect.gen(function* () {
    const ids = declaredIds(text)
    const loaded = yield* Effect.either(loadConfig(defaultLoadOptions()))
    const elsewhere =
      loaded._tag === "Right"
        ? Object.values(loaded.right.daemons).find((d) => d.id.name === id && !d.sources.includes(file))
        : undefined
    const flag = (source: string) =>
      /\.local\.toml$/.test(source)
        ? "--local"
        : nodePath.basename(source) === "config.toml"
          ? "--global"
          : "--project"
    const near = closest(id, ids)
    return new DaemonEditRefused({
      file,
      key: `daemons.${id}`,
      problem: `daemon ${JSON.stringify(id)} is not declared in this file: nothing removed`,
      hint:
        elsewhere !== undefined
          ? `it is declared in ${elsewhere.sources.join(", ")}: add ${flag(elsewhere.sources.at(-1)!)} (or edit that file)`
          : near !== undefined
            ? `did you mean ${near}? (declared here: ${ids.join(", ")})`
            : ids.length > 0
              ? `declared here: ${ids.join(", ")}`
              : existsSync(file)
                ? "this file declares no daemon"
                : "this file does not exist",
    })
  })

/**
 * `supervisor daemons [--json]`: the daemons the current directory's configuration declares (the
 * project's files and the global ones), with the files that declare each.
 */
export const list = (json: boolean) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(true)
      const daemons = Object.values(config.daemons).map((d) => ({
        id: d.id.qualified,
        run: d.config.run,
        files: d.sources,
      }))
      if (json) return yield* printJson(ConfiguredDaemons, daemons)
      // as for `list`: an empty listing prints nothing on stdout, the hint goes to stderr
      if (daemons.length === 0)
        return yield* note(
          dim("no daemons configured here: add one with `supervisor daemons add ID --run CMD`"),
        )
      yield* Console.log(
        renderTable(
          ["ID", "RUN", "FILE"],
          daemons.map((d) => [d.id, d.run, d.files.join(", ")]),
        ),
      )
    }),
  )
