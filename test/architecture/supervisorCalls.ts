// Who sends commands to the Supervisor itself: only supervisor/ and control/ may. Everything
// else (front-ends, automation, the host) goes through Control, so an action behaves the same
// from every road in.

/** The members of the Supervisor that change something: its commands, and the watch-problem report. */
export const commandMembers = (supervisorCommands: string): ReadonlyArray<string> => {
  const start = supervisorCommands.indexOf("export interface SupervisorCommandsShape {")
  const body = supervisorCommands.slice(start, supervisorCommands.indexOf("\n}", start))
  return [...[...body.matchAll(/^ {2}readonly (\w+)/gm)].map((m) => m[1] ?? ""), "setWatchProblem"]
}

/** Names bound to the Supervisor service in a file: `x = yield* Supervisor` (or `Effect.provide(Supervisor, ...)`), or a parameter typed as it. */
const supervisorNames = (text: string): ReadonlyArray<string> => [
  ...new Set([
    ...[...text.matchAll(/(\w+)\s*=\s*yield\*\s*(?:Effect\.provide\()?Supervisor\b/g)].map((m) => m[1] ?? ""),
    ...[...text.matchAll(/(\w+)\??\s*:\s*(?:SupervisorShape|Supervisor\["Type"\])/g)].map((m) => m[1] ?? ""),
  ]),
]

/** Each call of a Supervisor command outside `allowed` folders, as `file:line name.member`. */
export const supervisorCommandCalls = (
  files: ReadonlyMap<string, string>,
  members: ReadonlyArray<string>,
  allowed: ReadonlyArray<string>,
): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const [file, text] of files) {
    if (allowed.includes(file.split("/")[0] ?? "")) continue
    const names = supervisorNames(text)
    if (names.length === 0) continue
    const call = new RegExp(`\\b(${names.join("|")})\\.(${members.join("|")})\\b`, "g")
    text.split("\n").forEach((line, i) => {
      for (const m of line.matchAll(call)) out.push(`src/${file}:${i + 1} ${m[1]}.${m[2]}`)
    })
  }
  return out
}
