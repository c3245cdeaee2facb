import { Console, Effect, Schema } from "effect"
import { type SettingGroup, settingGroups } from "../../domain/Settings.js"
import { nearest } from "../../domain/suggest.js"
import { ExitCode, exitWith, red } from "../output.js"
import { handleErrors, loadHere } from "../session.js"
import { settingKeys } from "./complete.js"

/** The value as a file would write it: a string as it is, anything else as JSON. */
const show = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value))

/** `supervisor config get KEY`: the effective value of one setting, as a file writes it. */
export const get = (key: string) =>
  handleErrors(
    Effect.gen(function* () {
      const config = yield* loadHere(true)
      const full = key.startsWith("settings.") ? key : `settings.${key}`
      if (!settingKeys().includes(full)) {
        const near = nearest(full, settingKeys(), 2, (k) => k)
        yield* Console.error(
          `${red("error:")} unknown setting ${JSON.stringify(key)}${near.length > 0 ? `. Did you mean one of: ${near.join(", ")}?` : ""} (the settings: docs/configuration.md)`,
        )
        return yield* exitWith(ExitCode.failure)
      }
      const [, group, name] = full.split(".") as [string, SettingGroup, string]
      const encoded = Schema.encodeSync(
        settingGroups[group] as Schema.Schema<unknown, Record<string, unknown>>,
      )(config.settings[group])
      // an optional setting that is not set prints nothing
      if (encoded[name] !== undefined) yield* Console.log(show(encoded[name]))
    }),
  )
