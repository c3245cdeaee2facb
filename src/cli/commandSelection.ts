// The selection of a command (src/domain/Command.ts) as the CLI typed it: the IDs, `--all`,
// `--group`, `--local`/`--global`, and `from`, the directory and environment the supervisor reads
// the configuration in, as this CLI would have.
import { Option } from "effect"
import type { Scope } from "../control/selection.js"
import type { From, Selection } from "../domain/Command.js"
import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { definedEnv } from "../quick/request.js"
import { configUnusable } from "./session.js"

/** Where a selection is read from: this directory, or nowhere (the files here are broken). */
export type Here = Extract<From, { _tag: "Directory" }> | undefined

/**
 * This directory with this environment. When the files here cannot be read (the errors are
 * printed already, and a command that goes on without them was asked for), none: IDs are then
 * the supervisor's, qualified or a name only one namespace has.
 */
export const here = (config: ResolvedConfig): Here =>
  configUnusable(config)
    ? undefined
    : { _tag: "Directory", cwd: config.cwd, env: definedEnv(), strict: false }

/** The selection flags as typed, read from `from`. */
export const selectionOf = (
  o: {
    readonly ids: ReadonlyArray<string>
    readonly all: boolean
    readonly group: Option.Option<string>
  },
  scope: Scope | undefined,
  from: Here,
): Selection => ({
  ids: o.ids,
  all: o.all,
  ...(Option.isSome(o.group) ? { group: o.group.value } : {}),
  ...(scope === undefined ? {} : { files: scope }),
  ...(from === undefined ? {} : { from }),
})
