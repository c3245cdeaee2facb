// The simple forms of `start` and `stop` that are answered without the CLI bundle: by the
// launcher's quick client (src/quick/) and, for the native one, by the supervisor itself
// (src/api/quickAnswer.ts). Plain code, no Effect.
import type { Start } from "./Command.js"

export interface StartArgs {
  readonly ids: ReadonlyArray<string>
  readonly all: boolean
  readonly group: string | null
  readonly force: boolean
  readonly quiet: boolean
  readonly json: boolean
}

/**
 * The boolean flags of `start` taken on here, by their names in the command tree (no Effect here
 * to read it: test/cli/quickStart.test.ts holds them to it). `--group` is parsed apart.
 */
export const QUICK_FLAGS: Readonly<Record<string, "all" | "force" | "quiet" | "json">> = {
  "--all": "all",
  "-a": "all",
  "--force": "force",
  "-f": "force",
  "--quiet": "quiet",
  "-q": "quiet",
  "--json": "json",
}

/** The arguments after `start` when they are of the simple form handled here; else undefined. */
export const parseStartArgs = (args: ReadonlyArray<string>): StartArgs | undefined => {
  const seen = new Set<string>()
  const ids: Array<string> = []
  let group: string | null = null
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const flag = Object.hasOwn(QUICK_FLAGS, arg) ? QUICK_FLAGS[arg] : undefined
    let groupValue: string | undefined
    if (arg === "--group") groupValue = args[++i]
    else if (arg.startsWith("--group=")) groupValue = arg.slice("--group=".length)
    else if (flag === undefined) {
      if (arg.startsWith("-")) return undefined
      ids.push(arg)
      continue
    }
    const name = flag ?? "group"
    // repeated flags, and group values that look like flags, are the CLI's to judge
    if (seen.has(name)) return undefined
    seen.add(name)
    if (name === "group") {
      if (groupValue === undefined || groupValue === "" || groupValue.startsWith("-")) return undefined
      group = groupValue
    }
  }
  return {
    ids,
    group,
    all: seen.has("all"),
    force: seen.has("force"),
    quiet: seen.has("quiet"),
    json: seen.has("json"),
  }
}

export interface StopArgs {
  readonly ids: ReadonlyArray<string>
  readonly all: boolean
  readonly group: string | null
  readonly quiet: boolean
  readonly json: boolean
}

/** The arguments after `stop` when they are of the simple form handled here; else undefined. */
export const parseStopArgs = (args: ReadonlyArray<string>): StopArgs | undefined => {
  // start's forms less `--force`, which stop does not have
  const parsed = parseStartArgs(args)
  if (parsed === undefined || parsed.force) return undefined
  // no ID, no --all, no --group: the CLI says what to name
  if (parsed.ids.length === 0 && !parsed.all && parsed.group === null) return undefined
  return { ids: parsed.ids, all: parsed.all, group: parsed.group, quiet: parsed.quiet, json: parsed.json }
}

/** The selection of a quick command typed in `cwd` with `env` (strict: warnings refuse it). */
export const selectionFrom = (
  parsed: Pick<StartArgs, "ids" | "all" | "group">,
  cwd: string,
  env: Readonly<Record<string, string>>,
): typeof Start.Encoded.selection => ({
  ids: parsed.ids,
  all: parsed.all,
  ...(parsed.group === null ? {} : { group: parsed.group }),
  from: { _tag: "Directory", cwd, env, strict: true },
})
