import { Console, Effect, Option } from "effect"
import { mergeListing } from "../../control/listing.js"
import { resolveId, UsageError } from "../../control/selection.js"
import type { ApiDaemonEntry, NextRetry } from "../../domain/ApiDaemonEntry.js"
import { DaemonList, DaemonStatusOutput } from "../../domain/CliOutput.js"
import { inNamespaces } from "../../domain/DaemonId.js"
import { isActiveStatus, STATUS_TYPES, type StatusType } from "../../domain/DaemonStatus.js"
import { effectiveProxy } from "../../domain/proxyUrl.js"
import type { ResolvedConfig } from "../../domain/ResolvedConfig.js"
import { withSlugs } from "../../domain/slugs.js"
import type { ListOptions, StatusOptions } from "../args/listing.js"
import { SupervisorClient } from "../client.js"
import { groupStatus, listRows } from "../listGroups.js"
import { cyan, dim, green, note, printJson, red, yellow } from "../output.js"
import { knownDaemons } from "../selection.js"
import { withSupervisor } from "../session.js"
import { withSlugProjects } from "../slugIds.js"
import { formatCpu, formatMemory, formatUptime, renderTable } from "../table.js"

export { formatMemory }

/** Every daemon known to the supervisor, plus those configured here that it never ran. */
const listing = (config: ResolvedConfig) =>
  Effect.gen(function* () {
    const c = yield* SupervisorClient
    const known = yield* knownDaemons
    const disabled = yield* c.api.cli.disabled()
    // the slugs of this CLI's configuration, the same file the supervisor reads
    return withSlugs(mergeListing(known, disabled.ids, config), config.slugs, effectiveProxy(config.settings))
  }).pipe(Effect.orDie)

const statusColour = (t: StatusType) =>
  t === "running"
    ? green(t)
    : t === "errored" || t === "failed" || t === "unhealthy"
      ? red(t)
      : isActiveStatus(t)
        ? yellow(t)
        : dim(t)

/** How far `list` cuts RUN, then STATUS, before it cuts RUN further. */
const READABLE_RUN = 20
const READABLE_STATUS = 28

/** The terminal's width; piped, `COLUMNS` when it is set (as `ls` and `ps` read it), else 80. */
const tableWidth = (): number => {
  if (process.stdout.isTTY) return process.stdout.columns ?? 80
  const columns = Number(process.env.COLUMNS)
  return Number.isInteger(columns) && columns > 0 ? columns : 80
}

/** `supervisor list`: every daemon, filtered by status and namespace. */
export const list = (o: ListOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      const unknown = o.status.find((s) => !(STATUS_TYPES as ReadonlyArray<string>).includes(s))
      if (unknown !== undefined)
        return yield* new UsageError({
          message: `unknown status ${JSON.stringify(unknown)}: use one of ${STATUS_TYPES.join(", ")}`,
        })
      const inScope = inNamespaces(Option.toArray(o.namespace))
      const entries = (yield* listing(config)).filter(
        (e) => (o.status.length === 0 || o.status.includes(e.status.type)) && inScope(e.id),
      )
      if (o.json) return yield* printJson(DaemonList, entries)
      // Nothing on stdout for an empty listing: a script reading it sees no rows; the hint is for people.
      if (entries.length === 0) {
        const filters = [
          ...o.status.map((s) => `--status ${s}`),
          ...Option.toArray(Option.map(o.namespace, (n) => `--namespace ${n}`)),
        ]
        return yield* note(
          dim(
            filters.length > 0
              ? `no daemons match ${filters.join(" ")}`
              : "no daemons (configure some in supervisor.toml)",
          ),
        )
      }
      // a PROXY column only when a daemon has a slug: the 80-column table stays as it is otherwise
      const proxied = entries.some((e) => e.slug !== null)
      // a WORKTREE column only when a daemon runs from a worktree (docs/worktrees.md)
      const worktrees = entries.some((e) => e.worktree !== undefined)
      const worktreeCell = (e: ApiDaemonEntry) => (worktrees ? [e.worktree?.name ?? "-"] : [])
      const rows = listRows(entries).map((row) => {
        if (row._tag === "Group") {
          const ports = row.instances.flatMap((e) => e.resolved_port)
          const first = row.instances[0]!
          return [
            cyan(row.daemon),
            ...worktreeCell(first),
            groupStatus(row.instances),
            "-",
            "-",
            String(row.instances.reduce((n, e) => n + e.retry_count, 0)),
            "-",
            "-",
            ports.join(",") || "-",
            ...(proxied ? [proxyText(first)] : []),
            first.run.length > 48 ? `${first.run.slice(0, 47)}…` : first.run,
          ]
        }
        const e = row.entry
        const running = e.pid !== null
        return [
          `${row.instance ? "  " : ""}${cyan(e.id.qualified)}`,
          ...worktreeCell(e),
          statusText(e),
          running ? String(e.pid) : "-",
          running ? formatUptime(e.uptime_secs) : "-",
          String(e.retry_count),
          running ? formatCpu(e.cpu_percent) : "-",
          running ? formatMemory(e.memory_bytes) : "-",
          e.resolved_port.join(",") || "-",
          ...(proxied ? [proxyText(e)] : []),
          e.run.length > 48 ? `${e.run.slice(0, 47)}…` : e.run,
        ]
      })
      // Rows stay within the terminal (80 columns when piped): RUN is cut first but kept readable,
      // then a long STATUS (a limit's reason, a retry) is cut, then RUN down to 8 characters
      const header = ["ID", ...(worktrees ? ["WORKTREE"] : []), "STATUS", "PID", "UPTIME", "RESTARTS"]
      const status = header.indexOf("STATUS")
      header.push("CPU", "MEM", "PORTS")
      if (proxied) header.push("PROXY")
      const run = header.push("RUN") - 1
      const table = renderTable(header, rows, {
        maxWidth: tableWidth(),
        shrink: [
          { column: run, min: READABLE_RUN },
          { column: status, min: READABLE_STATUS },
          { column: run, min: 8 },
        ],
      })
      yield* Console.log(o.hideHeader ? table.split("\n").slice(1).join("\n") : table)
    }),
  )

/** `retry 2/3 in 4s` (`retry 5 in 16s` when unlimited): the retry an errored daemon waits for. */
export const retryText = (r: NextRetry): string =>
  `retry ${r.retry}${r.of === null ? "" : `/${r.of}`} in ${Math.ceil(r.due_in_ms / 1000)}s`

/**
 * A daemon's status as `list` shows it: the status, the exit code of an errored daemon
 * (`errored (exit code 1)`, or the signal) or the retry it waits for (`errored, retry 2/3 in
 * 4s`), and `disabled` on a disabled daemon that still runs.
 */
const statusText = (e: ApiDaemonEntry): string => {
  const s = e.status
  // errored, or stopped under restart = "always": the next run is pending
  if (e.next_retry !== null) return `${statusColour(s.type)}, ${retryText(e.next_retry)}`
  // a limit's kill says which limit (`killed: memory 161.2 MB over memory_limit 80 MB`), not SIGKILL
  const why =
    s.type !== "errored"
      ? undefined
      : s.message?.startsWith("killed: ")
        ? s.message
        : s.exit_code != null
          ? `exit code ${s.exit_code}`
          : s.signal
            ? `killed by ${s.signal}`
            : undefined
  const shown = statusColour(s.type) + (why === undefined ? "" : ` (${why})`)
  return !e.enabled && s.type !== "disabled" ? `${shown} ${dim("disabled")}` : shown
}

/** The PROXY column: the daemon's address through the proxy, its slug while the proxy is off, or `-`. */
const proxyText = (e: ApiDaemonEntry): string =>
  e.proxy_url ?? (e.slug === null ? "-" : `${e.slug} ${dim("(proxy off)")}`)

/** `Port: 3000 (active)`: the daemon's ports, the one it listens on marked. */
const portsText = (e: ApiDaemonEntry): string => {
  const ports = e.resolved_port.length > 0 ? e.resolved_port : e.active_port === null ? [] : [e.active_port]
  return ports.map((p) => (p === e.active_port ? `${p} (active)` : String(p))).join(", ") || "-"
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`

/** `supervisor status ID`: one daemon's status. */
export const status = (o: StatusOptions) =>
  withSupervisor(false, (config) =>
    Effect.gen(function* () {
      // a slug typed as the ID brings its project's daemons
      const here = yield* withSlugProjects(config, [o.id])
      const entries = yield* listing(here)
      const id = yield* resolveId(o.id, here, entries)
      const instances = entries.filter((x) => x.instance?.daemon === id)
      if (instances.length > 0)
        return yield* new UsageError({
          message: `${id} runs as instances (${instances.map((x) => x.id.name).join(", ")}): name one, such as \`supervisor status ${instances[0]!.id.name}\`, or see them all with \`supervisor list\``,
        })
      const e = entries.find((x) => x.id.qualified === id)!
      if (o.json) return yield* printJson(DaemonStatusOutput, { ...e, status_text: e.status.type })
      // pitchfork's lines first (`awk '/^Status:/'` works), then ours
      const running = e.pid !== null
      const lines: Array<[string, string]> = [
        ["Name", e.id.qualified],
        ["PID", running ? String(e.pid) : "-"],
        ["Status", e.next_retry === null ? e.status.type : `${e.status.type}, ${retryText(e.next_retry)}`],
        ["Port", portsText(e)],
        ["Uptime", running ? formatUptime(e.uptime_secs) : "-"],
        ["CPU", running ? `${e.cpu_percent.toFixed(1)}%` : "-"],
        ["Memory", running ? mib(e.memory_bytes) : "-"],
        ["Retries", String(e.retry_count)],
      ]
      if (e.status.exit_code != null || e.status.signal)
        lines.push([
          "Last exit",
          e.status.signal ? `killed by ${e.status.signal}` : `exit code ${e.status.exit_code}`,
        ])
      if (e.status.message) lines.push(["Message", e.status.message])
      if (e.next_run !== null) lines.push(["Next run", e.next_run])
      if (e.watch_problem !== null) lines.push(["Watch", e.watch_problem])
      if (e.log_problem !== undefined) lines.push(["Log", e.log_problem])
      // pitchfork's `Proxy: URL`; `-` and why while the proxy is off
      if (e.slug !== null)
        lines.push(["Slug", e.slug], ["Proxy", e.proxy_url ?? "- (the proxy is off: settings.proxy.enable)"])
      lines.push(
        ["Enabled", e.enabled ? "yes" : "no"],
        ["Run", e.run],
        ["Dir", e.dir],
        ["Source", e.source ?? "(ad-hoc)"],
      )
      for (const [k, v] of lines) yield* Console.log(`${k}: ${v}`)
    }),
  )
