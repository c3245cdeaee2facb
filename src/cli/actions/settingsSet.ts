// `settings set KEY VALUE [--project|--local|--global]`: the value read as the loader reads it,
// written with a format-preserving edit after the whole file is checked.
import * as os from "node:os"
import { Console, Effect, Either } from "effect"
import { type SettingsScope, settingsTarget, writeSetting } from "../../config/edit/settingsFile.js"
import { envOverrideOf, readSettingText } from "../../config/settings.js"
import { findSetting } from "../../config/settingsInfo.js"
import { ExitCode, exitWith, red, warn, yellow } from "../output.js"
import { handleErrors } from "../session.js"
import { currentProxyNeed } from "./proxyNeeds.js"
import { tomlText, unknownSetting } from "./settings.js"

const fail = (message: string) =>
  Console.error(`${red("error:")} ${message}`).pipe(Effect.zipRight(exitWith(ExitCode.failure)))

export const set = (key: string, text: string, flags: Readonly<Record<SettingsScope, boolean>>) =>
  handleErrors(
    Effect.gen(function* () {
      const chosen = (Object.keys(flags) as Array<SettingsScope>).filter((s) => flags[s])
      if (chosen.length > 1)
        return yield* Console.error(
          `${red("error:")} ${chosen.map((s) => `--${s}`).join(" and ")}: give one of them, the file to write`,
        ).pipe(Effect.zipRight(exitWith(ExitCode.usage)))
      const scope = chosen[0] ?? "project"
      const info = findSetting(key)
      if (info === undefined) return yield* unknownSetting(key)
      const full = `settings.${info.key}`
      if (info.type === "table")
        return yield* fail(`${full} is a table: write it in the file by hand (docs/settings.md)`)
      const value = readSettingText(info.group, info.name, text)
      if (Either.isLeft(value))
        return yield* fail(
          `invalid value ${JSON.stringify(text)} for ${full} (${info.type})${value.left ? `: ${value.left}` : ""}; nothing was written`,
        )
      const env = process.env
      const location = settingsTarget(process.cwd(), scope, env, env.HOME || os.homedir())
      const written = yield* writeSetting(
        location,
        info.group,
        info.name,
        value.right as string | number | boolean,
      )
      for (const w of written.warnings) yield* warn(`${w}`)
      const overriding = envOverrideOf(env, info.group, info.name)
      if (overriding !== undefined)
        yield* warn(`${overriding.name} is set in this environment and overrides it`)
      yield* Console.log(
        `${full} = ${tomlText(value.right)} in ${written.path}${written.created ? " (created)" : ""}`,
      )
      // the running supervisor applies the proxy's settings live: say what is still needed once it has
      if (info.group === "proxy" && location.level !== "project") {
        const need = yield* currentProxyNeed(full)
        if (need !== undefined) yield* Console.error(`${yellow("note:")} ${need}`)
      }
    }),
  )
