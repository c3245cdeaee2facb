import { Console, Effect, Option } from "effect"
import { mergeListing } from "../../control/listing.js"
import { resolveId, UsageError } from "../../control/selection.js"
import { ApiDaemonEntry } from "../../domain/ApiDaemonEntry.js"
import { DaemonList } from "../../domain/CliOutput.js"
import { isActiveStatus, STATUS_TYPES, type StatusType } from "../../domain/DaemonStatus.js"
import type { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { SupervisorClient } from "../client.js"
import type { ListOptions, StatusOptions } from "../listing.js"
import { cyan, dim, green, printJson, red, yellow } from "../output.js"
import { knownDaemons } from "../selection.js"
import { withSupervisor } from "../session.js"
import { formatUptime, renderTable } from "../table.js"

/** Every daemon known to the supervisor, plus those configured here that it never ran. */
const listing = (config: ResolvedConfig) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const known = yield* knownDaemons
    const disabled = yield* c.api.cli.disabled()
    return mergeListing(known, disabled.ids, config)
  }).pipe(Effect.orDie)

const statusColour = (t: StatusType) =>
  t === "running"
    ? green(t)
    : t === "errored" || t === "failed"
      ? red(t)
      : isActiveStatus(t)
        ? yellow(t)
        : dim(t)

/** `supervisor list`: every daemon, filtered by status and namespace. */
export const list = (o: ListOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      if (Option.isSome(o.status) && !(STATUS_TYPES as ReadonlyArray<string>).includes(o.status.value))
        return yield* new UsageError({
          message: `unknown status ${JSON.stringify(o.status.value)}: use one of ${STATUS_TYPES.join(", ")}`,
        })
      const entries = (yield* listing(config)).filter(
        (e) =>
          Option.match(o.status, { onNone: () => true, onSome: (s) => e.status.type === s }) &&
          Option.match(o.namespace, { onNone: () => true, onSome: (n) => e.id.namespace === n }),
      )
      if (o.json) return yield* printJson(DaemonList, entries)
      if (entries.length === 0) {
        const filters = [
          ...Option.toArray(Option.map(o.status, (s) => `--status ${s}`)),
          ...Option.toArray(Option.map(o.namespace, (n) => `--namespace ${n}`)),
        ]
        return yield* Console.log(
          dim(
            filters.length > 0
              ? `no daemons match ${filters.join(" ")}`
              : "no daemons (configure some in supervisor.toml)",
          ),
        )
      }
      yield* Console.log(
        renderTable(
          ["ID", "STATUS", "PID", "UPTIME", "PORTS", "RUN"],
          entries.map((e) => [
            cyan(e.id.qualified),
            statusColour(e.status.type),
            e.pid === null ? "-" : String(e.pid),
            e.pid === null ? "-" : formatUptime(e.uptime_secs),
            e.resolved_port.join(",") || "-",
            e.run.length > 48 ? `${e.run.slice(0, 47)}…` : e.run,
          ]),
        ),
      )
    }),
  )

/** `supervisor status ID`: one daemon's status. */
export const status = (o: StatusOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const entries = yield* listing(config)
      const id = yield* resolveId(o.id, config, entries)
      const e = entries.find((x) => x.id.qualified === id)!
      if (o.json) return yield* printJson(ApiDaemonEntry, e)
      const rows: Array<[string, string]> = [
        ["status", statusColour(e.status.type) + (e.status.message ? dim(` (${e.status.message})`) : "")],
        ["pid", e.pid === null ? "-" : String(e.pid)],
        ["uptime", e.pid === null ? "-" : formatUptime(e.uptime_secs)],
        ["run", e.run],
        ["dir", e.dir],
        ["ports", e.resolved_port.join(", ") || "-"],
        ["active port", e.active_port === null ? "-" : String(e.active_port)],
        ["enabled", e.enabled ? "yes" : "no"],
        ["retries", String(e.retry_count)],
        ["source", e.source ?? "(ad-hoc)"],
      ]
      if (e.status.exit_code !== undefined && e.status.exit_code !== null)
        rows.push(["exit code", String(e.status.exit_code)])
      if (e.status.signal) rows.push(["signal", e.status.signal])
      yield* Console.log(cyan(e.id.qualified))
      const width = Math.max(...rows.map(([k]) => k.length))
      for (const [k, v] of rows) yield* Console.log(`  ${k.padEnd(width)}  ${v}`)
    }),
  )
