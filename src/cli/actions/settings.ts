// `supervisor settings`, `settings list` and `settings get`: the settings in force here, read from
// the one settings Schema (src/config/settingsInfo.ts), with their defaults and sources.
import { Console, Effect, Either, Option, Schema } from "effect"
import { settingEntries } from "../../config/settingsEntries.js"
import { findSetting, settingInfos } from "../../config/settingsInfo.js"
import { ReadSettings } from "../../domain/Command.js"
import { settingGroups } from "../../domain/Settings.js"
import {
  type SettingEntry,
  SettingEntry as SettingEntrySchema,
  SettingList,
} from "../../domain/SettingsOutput.js"
import { nearest } from "../../domain/suggest.js"
import { SupervisorClient, supervisorClientLayer } from "../client.js"
import { hereFrom } from "../commandStream.js"
import { ExitCode, exitWith, printJson, red } from "../output.js"
import { isRemote } from "../remote.js"
import { handleErrors, loadHere } from "../session.js"
import { renderTable } from "../table.js"

/**
 * The settings in force here: the Settings command, answered by the running supervisor from this
 * directory and environment (with --url: the remote supervisor's own settings). Without a
 * supervisor (none is started for this) they are read here, the same way.
 */
const here = Effect.gen(function* () {
  const config = yield* loadHere(true)
  const command = new ReadSettings({ ...(isRemote() ? {} : { from: hereFrom() }), reason: "cli" })
  const answered = yield* Effect.flatMap(SupervisorClient, (c) =>
    c.api.commands.handle({ payload: command }),
  ).pipe(Effect.provide(supervisorClientLayer({ autoStart: false })), Effect.either)
  if (Either.isRight(answered) && isSettingList(answered.right)) return answered.right
  // against a URL the answer is the only source: say why there is none
  if (isRemote())
    return yield* Effect.fail({
      _tag: "SettingsUnavailable",
      message: Either.isLeft(answered)
        ? errorMessage(answered.left)
        : "the supervisor answered Settings with another shape",
    })
  return settingEntries(config, process.env)
})

const isSettingList = Schema.is(SettingList)

const errorMessage = (e: unknown): string =>
  typeof e === "object" && e !== null && "message" in e && typeof e.message === "string" && e.message !== ""
    ? e.message
    : String(e)

/** A value as a TOML file writes it (inline tables for tables). */
export const tomlText = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(tomlText).join(", ")}]`
  if (typeof value === "object" && value !== null)
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k} = ${tomlText(v)}`)
      .join(", ")} }`
  return String(value)
}

/** A value on its own line: a string as it is, anything else as JSON (as `config get` prints it). */
const plain = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** `supervisor settings`: every setting grouped as TOML; defaults commented, the values in force set. */
export const show = handleErrors(
  Effect.gen(function* () {
    const entries = yield* here
    const out: Array<string> = []
    for (const group of Object.keys(settingGroups)) {
      const rows = entries.filter((e) => e.group === group)
      out.push(`${out.length > 0 ? "\n" : ""}[settings.${group}]`)
      for (const e of rows) {
        out.push(`# ${e.description} (${e.type}; ${e.env})`)
        const name = e.key.slice(group.length + 1)
        if (e.value !== undefined && (e.source !== "default" || !same(e.value, e.default)))
          out.push(
            `${name} = ${tomlText(e.value)}  # from ${e.file ?? e.source}${e.default === undefined ? "" : `; default ${tomlText(e.default)}`}`,
          )
        else out.push(e.default === undefined ? `# ${name} =  (unset)` : `# ${name} = ${tomlText(e.default)}`)
      }
    }
    yield* Console.log(out.join("\n"))
  }),
)

/** `settings list [--group G] [--json]`. */
export const list = (group: Option.Option<string>, json: boolean) =>
  handleErrors(
    Effect.gen(function* () {
      const entries = (yield* here).filter((e) => Option.isNone(group) || e.group === group.value)
      if (json) return yield* printJson(SettingList, entries)
      const cell = (v: unknown) => (v === undefined ? "-" : tomlText(v))
      yield* Console.log(
        renderTable(
          ["KEY", "TYPE", "VALUE", "DEFAULT", "SOURCE", "ENV", "DESCRIPTION"],
          entries.map((e) => [e.key, e.type, cell(e.value), cell(e.default), e.source, e.env, e.description]),
          process.stdout.isTTY ? { maxWidth: process.stdout.columns ?? 120 } : {},
        ),
      )
    }),
  )

/** An unknown key: exit 1 with the closest keys. */
export const unknownSetting = (key: string) => {
  const short = key.startsWith("settings.") ? key.slice("settings.".length) : key
  const keys = settingInfos().map((s) => s.key)
  const near = nearest(short, keys, 3, (k) => k)
  const sameName = keys.filter((k) => k.endsWith(`.${short.split(".").at(-1)}`) && !near.includes(k))
  const hints = [...near, ...sameName].slice(0, 3)
  return Console.error(
    `${red("error:")} unknown setting ${JSON.stringify(key)}${hints.length > 0 ? `. Did you mean one of: ${hints.join(", ")}?` : ""} (every setting: supervisor settings list)`,
  ).pipe(Effect.zipRight(exitWith(ExitCode.failure)))
}

/** `settings get KEY [--json]`: the effective value (env > local/project > user > system > default). */
export const get = (key: string, json: boolean) =>
  handleErrors(
    Effect.gen(function* () {
      const info = findSetting(key)
      if (info === undefined) return yield* unknownSetting(key)
      const entry = (yield* here).find((e) => e.key === info.key) as SettingEntry
      if (json) return yield* printJson(SettingEntrySchema, entry)
      // an optional setting that is not set prints nothing
      if (entry.value !== undefined) yield* Console.log(plain(entry.value))
    }),
  )
