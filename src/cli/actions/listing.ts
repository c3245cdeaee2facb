import { Console, Effect, Option } from "effect"
import type { ApiDaemonEntry } from "../../domain/ApiDaemonEntry.js"
import type { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { SupervisorClient } from "../client.js"
import type { ListOptions, StatusOptions } from "../listing.js"
import { cyan, dim, green, printJson, red, yellow } from "../output.js"
import { configDefinitions, resolveId } from "../resolve.js"
import { knownDaemons } from "../selection.js"
import { withSupervisor } from "../session.js"
import { formatUptime, renderTable } from "../table.js"

/** Every daemon known to the supervisor, plus those configured here that it never ran. */
const listing = (config: ResolvedConfig) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const known = yield* knownDaemons
    const disabled = new Set((yield* c.api.cli.disabled()).ids)
    const seen = new Set(known.map((k) => k.id.qualified))
    const configured = [...configDefinitions(config).values()]
      .filter((d) => !seen.has(d.id.qualified))
      .map(
        (d): ApiDaemonEntry => ({
          id: d.id,
          title: d.id.name,
          pid: null,
          status: { type: disabled.has(d.id.qualified) ? "disabled" : "available" },
          dir: d.config.dir,
          cpu_percent: 0,
          memory_bytes: 0,
          uptime_secs: 0,
          proxy_url: null,
          slug: null,
          active_port: null,
          resolved_port: d.config.port?.expect ?? [],
          enabled: !disabled.has(d.id.qualified),
          adhoc: false,
          run: d.config.run,
          retry_count: 0,
          source: d.source,
        }),
      )
    return [...known, ...configured].sort((a, b) => a.id.qualified.localeCompare(b.id.qualified))
  }).pipe(Effect.orDie)

const statusColour = (t: string) =>
  t === "running"
    ? green(t)
    : t === "errored" || t === "failed"
      ? red(t)
      : t === "waiting" || t === "stopping"
        ? yellow(t)
        : dim(t)

/** `supervisor list`: every daemon, filtered by status and namespace. */
export const list = (o: ListOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const entries = (yield* listing(config)).filter(
        (e) =>
          Option.match(o.status, { onNone: () => true, onSome: (s) => e.status.type === s }) &&
          Option.match(o.namespace, { onNone: () => true, onSome: (n) => e.id.namespace === n }),
      )
      if (o.json) return yield* printJson(entries)
      if (entries.length === 0)
        return yield* Console.log(dim("no daemons (configure some in supervisor.toml)"))
      yield* Console.log(
        renderTable(
          ["ID", "STATUS", "PID", "UPTIME", "PORTS", "RUN"],
          entries.map((e) => [
            cyan(e.id.qualified),
            statusColour(e.status.type),
            e.pid === null ? "-" : String(e.pid),
            formatUptime(e.uptime_secs),
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
      if (o.json) return yield* printJson(e)
      const rows: Array<[string, string]> = [
        ["status", statusColour(e.status.type) + (e.status.message ? dim(` (${e.status.message})`) : "")],
        ["pid", e.pid === null ? "-" : String(e.pid)],
        ["uptime", formatUptime(e.uptime_secs)],
        ["run", e.run],
        ["dir", e.dir],
        ["ports", e.resolved_port.join(", ") || "-"],
        ["enabled", e.enabled ? "yes" : "no"],
        ["retries", String(e.retry_count)],
        ["source", e.source ?? "(ad-hoc)"],
      ]
      if (e.status.exit_code !== undefined && e.status.exit_code !== null)
        rows.push(["exit code", String(e.status.exit_code)])
      if (e.status.signal) rows.push(["signal", e.status.signal])
      yield* Console.log(cyan(e.id.qualified))
      for (const [k, v] of rows) yield* Console.log(`  ${k.padEnd(10)} ${v}`)
    }),
  )
