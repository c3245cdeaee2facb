import { Console, Effect } from "effect"
import type { StartOutcome } from "../domain/StartOutcome.js"
import { cyan, dim, ExitCode, exitWith, green, printJson, red, yellow } from "./output.js"

const plural = (ports: ReadonlyArray<number>) => `port${ports.length === 1 ? "" : "s"} ${ports.join(", ")}`

/** `, port 3001; 3000 was in use`: the ports a daemon got, and the configured ones when shifted. */
const portsNote = (ports?: ReadonlyArray<number>, expected?: ReadonlyArray<number>) => {
  if (ports === undefined || ports.length === 0) return ""
  const shifted =
    expected && expected.length > 0
      ? `; ${plural(expected)} ${expected.length === 1 ? "was" : "were"} in use`
      : ""
  return `, ${plural(ports)}${shifted}`
}

export const outcomeLine = (o: StartOutcome): string => {
  switch (o._tag) {
    case "Ready":
      return `${green("✓")} ${cyan(o.id)} is running ${dim(`(pid ${o.pid}${portsNote(o.ports, o.expected_ports)})`)}`
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
export const outcomeStatus = (outcomes: ReadonlyArray<StartOutcome>): number =>
  outcomes.reduce((code, o) => {
    if (o._tag === "StartFailed") return Math.max(code, o.cli_status)
    if (o._tag === "Disabled" || o._tag === "Interrupted") return Math.max(code, ExitCode.failure)
    return code
  }, 0)

export const reportStart = (
  outcomes: ReadonlyArray<StartOutcome>,
  options: { json: boolean; quiet: boolean },
) =>
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
