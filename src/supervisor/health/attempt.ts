import { Effect } from "effect"
import type { ReadinessEnvironment, ReadinessProbesShape } from "../readiness/index.js"
import { foreignPortMessage, type ProbeAnswer } from "../readiness/index.js"
import type { HealthSpec } from "./spec.js"

/** What one attempt of a health check needs: the probes, the daemon's shell and process tree. */
export interface AttemptEnvironment {
  readonly probes: ReadinessProbesShape
  readonly command: ReadinessEnvironment["command"]
  /** The pids of the daemon's process tree now (`owner`: the daemon a port template names). */
  readonly treeOf: ReadinessEnvironment["treeOf"]
}

/**
 * One attempt of the (rendered) health check, through the readiness probes: an http or cmd
 * check answers as it does for readiness, a port check passes while the daemon's tree listens.
 */
export const healthAttempt = (
  id: string,
  spec: HealthSpec,
  env: AttemptEnvironment,
): Effect.Effect<ProbeAnswer> => {
  const check = spec.check
  switch (check._tag) {
    case "http":
      return env.probes.http(check.url, check.status, spec.timeout)
    case "cmd":
      return env.probes.cmd({ ...env.command, run: check.run }, spec.timeout)
    case "port": {
      const port = check.port
      if (typeof port !== "number")
        return Effect.dieMessage(`health.port ${JSON.stringify(port)} was not rendered`)
      return Effect.map(env.probes.port(port, env.treeOf(check.owner), spec.timeout), (answer) =>
        answer._tag === "Listening"
          ? { ok: true, output: "" }
          : answer._tag === "Closed"
            ? { ok: false, output: `nothing listens on port ${port}` }
            : { ok: false, output: foreignPortMessage(check.owner ?? id, port, answer) },
      )
    }
  }
}
