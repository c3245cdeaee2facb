// The Explain command (`supervisor why ID`, docs/why.md): why a daemon is not running or not
// ready, from what the supervisor knows of it: its status and message, its next retry, the
// dependencies it waits for (each explained in turn), its readiness check, a disabled flag, a
// port another process holds, and its last lines of output where they tell more.
import { Effect, Option } from "effect"
import type { Explain } from "../domain/Command.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import { conditionOf, conditionText, type DependencyCondition } from "../domain/Dependency.js"
import type { ExplainReason, Explanation } from "../domain/Explain.js"
import { portHolder } from "../process/sockets.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import { describeCheck, readinessChecks } from "../supervisor/readiness/plan.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import { type SelectDeps, selectDaemons } from "./selectFor.js"

export interface ExplainDeps extends SelectDeps {
  readonly sup: Pick<SupervisorShape, "get" | "isDisabled" | "lastLines">
}

/** How many lines of output a reason shows. */
const OUTPUT_LINES = 5

/** What a run waits for before it counts as ready: `output matching /ready/ and port 5432`. */
const checkOf = (def: DaemonDefinition): string =>
  readinessChecks(def.config)
    .map((c) => (c._tag === "delay" ? `its ready_delay (${describeCheck(c)})` : describeCheck(c)))
    .join(" and ")

const seconds = (ms: number) => `${Math.max(0, Math.round(ms / 100) / 10)} s`

/** Whether a dependency in state `r` meets `condition` now. */
const meets = (r: DaemonState | undefined, condition: DependencyCondition): boolean => {
  if (r === undefined) return false
  if (condition === "started") return r.handle !== null || r.status.type === "stopped"
  if (condition === "ready") return r.status.type === "running"
  return r.status.type === "stopped" && (r.status.exit_code ?? null) === 0
}

export const makeExplain = (deps: ExplainDeps) => {
  const state = (id: string) => Effect.map(Effect.option(deps.sup.get(id)), Option.getOrUndefined)
  const lines = (id: string) => Effect.map(deps.sup.lastLines(id, OUTPUT_LINES), (l) => [...l])

  const explainOne = (
    id: string,
    def: DaemonDefinition | undefined,
    depth: number,
    seen: Set<string>,
  ): Effect.Effect<Array<ExplainReason>> =>
    Effect.gen(function* () {
      seen.add(id)
      const r = yield* state(id)
      const d = r?.def ?? def
      const out: Array<ExplainReason> = []
      const say = (kind: ExplainReason["kind"], text: string, output: Array<string> = []) =>
        out.push({ kind, id, depth, text, output })
      if (yield* deps.sup.isDisabled(id))
        say("disabled", `${id} is disabled: \`supervisor enable ${id}\` lets it start`)
      const status = r?.status.type ?? "available"
      const message = r?.status.message
      if (r === undefined || status === "available")
        say("never-started", `${id} has not been started under this supervisor: \`supervisor start ${id}\``)
      else if (status === "running") say("ready", `${id} is running (pid ${r.pid}) and ready`)
      else if (status === "waiting" && r.handle !== null)
        say(
          "check",
          `${id} runs (pid ${r.pid}, started ${seconds(Date.now() - (r.startedAt ?? Date.now()))} ago) and waits for ${d === undefined ? "its readiness check" : checkOf(d)}`,
          yield* lines(id),
        )
      else if (status === "waiting") say("starting", `${id} is being started: it waits for its dependencies`)
      else if (status === "unhealthy")
        say(
          "check",
          `${id} runs (pid ${r.pid}) but its health check fails${message ? `: ${message}` : ""}`,
          yield* lines(id),
        )
      else if (status === "stopping") say("stopped", `${id} is being stopped`)
      else if (status === "stopped" && r.status.exit_code === 0)
        say("completed", `${id} ran to completion (exit code 0)`)
      else if (status === "stopped") say("stopped", `${id} was stopped${message ? `: ${message}` : ""}`)
      else {
        // errored or failed: how it ended, then whether it comes back
        const how =
          r.status.signal != null
            ? `was killed by ${r.status.signal}`
            : r.status.exit_code != null
              ? `exited with code ${r.status.exit_code}`
              : "failed"
        const limit = message !== undefined && /limit/i.test(message)
        // the message says more than the status when it is not only the status in words
        const more =
          message !== undefined && !/^(exited with code|killed by)/.test(message) ? `: ${message}` : ""
        say(limit ? "limit" : "exited", `${id} ${how}${more}`, yield* lines(id))
        if (r.retryPending && r.nextRetry !== null)
          say(
            "retry",
            `${id} will be retried in ${seconds(r.nextRetry.dueAt - Date.now())} (retry ${r.nextRetry.retry}${Number.isFinite(r.nextRetry.limit) ? ` of ${r.nextRetry.limit}` : ""})`,
          )
        else if (status === "failed" || !r.retryPending)
          say("exited", `${id} is not retried: \`supervisor start ${id}\` starts it again`)
      }
      // a port it needs, held by a process that is not its own
      if (d !== undefined && status !== "running" && status !== "waiting" && status !== "unhealthy")
        for (const port of d.config.port?.expect ?? []) {
          const holder = portHolder(port)
          if (holder !== undefined && holder.pid !== r?.pid)
            say("port", `port ${port}, which ${id} binds, is held by pid ${holder.pid} (${holder.name})`)
        }
      // the dependencies not met yet: each explained, one level deeper
      if (d !== undefined && status !== "running")
        for (const dep of d.config.depends) {
          const condition = conditionOf(d.config, dep)
          const depState = yield* state(dep)
          if (meets(depState, condition)) continue
          say("dependency", `${id} waits for ${conditionText(dep, condition)}`)
          if (!seen.has(dep)) out.push(...(yield* explainOne(dep, undefined, depth + 1, seen)))
        }
      return out
    })

  return (c: Explain): Effect.Effect<Explanation, Effect.Effect.Error<ReturnType<typeof selectDaemons>>> =>
    Effect.gen(function* () {
      const selected = yield* selectDaemons(
        deps,
        { ids: [c.id], all: false, ...(c.from === undefined ? {} : { from: c.from }) },
        "configured",
      )
      const id = selected.ids[0] ?? c.id
      const configured = selected.config?.daemons[id]
      const def: DaemonDefinition | undefined =
        configured === undefined
          ? undefined
          : { id: configured.id, config: configured.config, adhoc: false, source: configured.source }
      const r = yield* state(id)
      const reasons = yield* explainOne(id, def, 0, new Set())
      const status = r?.status.type ?? "available"
      const ok = status === "running" || (status === "stopped" && r?.status.exit_code === 0)
      return { id, status, ok, reasons }
    })
}
