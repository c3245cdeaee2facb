// SUPERVISOR_LOG: how much the CLI says on stderr besides errors, as pitchfork's PITCHFORK_LOG.
// `error` keeps the errors only, `warn` adds the warnings, `info` (the default) the notes and
// hints too; `debug` and `trace` are accepted and say as much as `info`. Errors always show.
// Plain Node: the quick client (src/quick/) and the shell hook's `cd` read it as well.

export const STDERR_LEVELS = ["off", "error", "warn", "info", "debug", "trace"] as const
export type StderrLevel = (typeof STDERR_LEVELS)[number]

const DEFAULT: StderrLevel = "info"

/** The level SUPERVISOR_LOG names (case-insensitive), the default when unset; undefined when invalid. */
export const parseStderrLevel = (value: string | undefined): StderrLevel | undefined => {
  if (value === undefined || value.trim() === "") return DEFAULT
  const v = value.trim().toLowerCase()
  return (STDERR_LEVELS as ReadonlyArray<string>).find((l) => l === v) as StderrLevel | undefined
}

/** Why SUPERVISOR_LOG is not a level, or undefined (unset or valid). */
export const stderrLevelProblem = (env: NodeJS.ProcessEnv = process.env): string | undefined =>
  parseStderrLevel(env.SUPERVISOR_LOG) === undefined
    ? `SUPERVISOR_LOG=${env.SUPERVISOR_LOG}: invalid level '${env.SUPERVISOR_LOG}'; expected one of: ${STDERR_LEVELS.join(", ")} (info is used)`
    : undefined

/** Whether a message of `level` goes to stderr under SUPERVISOR_LOG (an invalid value counts as info). */
export const showsOnStderr = (level: "warn" | "info", env: NodeJS.ProcessEnv = process.env): boolean => {
  const current = parseStderrLevel(env.SUPERVISOR_LOG) ?? DEFAULT
  return STDERR_LEVELS.indexOf(current) >= STDERR_LEVELS.indexOf(level)
}
