import {
  CLOCK_TICKS_PER_SECOND,
  lifetimeCpu,
  PAGE_SIZE,
  type ProcStat,
  readAllStats,
  readSystemUptime,
} from "../process/procfs.js"
import { listeningPortsOf, listeningSockets, onDemand } from "../process/sockets.js"
import { type DaemonState, isActive } from "./DaemonState.js"

/** What a running daemon's process group uses right now. */
export interface DaemonUsage {
  /** A TCP port the group listens on (see `daemonUsage`); null when none. */
  readonly activePort: number | null
  /** CPU use of the whole group, in percent of one core. */
  readonly cpuPercent: number
  /** Resident memory of the whole group, in bytes. */
  readonly memoryBytes: number
}

/** The previous CPU sample of each daemon group: CPU % is the change since it. */
const previous = new Map<string, { readonly ticks: number; readonly at: number; readonly pids: string }>()

/**
 * Usage of each running daemon, in one pass over /proc (nothing is read when none runs). A
 * daemon's processes are its process group (it is spawned as the group leader). Memory is the
 * sum of the members' resident sets. CPU is measured between two calls (the last call's sample,
 * when the group is the same); on a first call, over the processes' lifetimes. `activePort`
 * prefers the daemon's resolved ports in order (the first that is listening), else its lowest
 * listening port, so it also works for daemons without `port`.
 */
export const daemonUsage = (
  runtimes: ReadonlyArray<DaemonState>,
  now: number = Date.now(),
): ReadonlyMap<string, DaemonUsage> => {
  const out = new Map<string, DaemonUsage>()
  const running = runtimes.filter((r) => isActive(r) && r.pid !== null)
  if (running.length === 0) return out
  const groups = new Map<number, Array<ProcStat>>()
  for (const stat of readAllStats()) {
    const members = groups.get(stat.pgrp)
    if (members) members.push(stat)
    else groups.set(stat.pgrp, [stat])
  }
  const listening = onDemand(listeningSockets)
  const uptime = readSystemUptime()
  for (const r of running) {
    const id = r.def.id.qualified
    const members = groups.get(r.pid as number) ?? []
    const ports = listeningPortsOf(
      members.map((m) => m.pid),
      listening,
    )
    let memoryBytes = 0
    let ticks = 0
    let sinceStart = 0
    for (const m of members) {
      memoryBytes += m.rss * PAGE_SIZE // the stat line has it: no second file per process
      ticks += m.utime + m.stime
      sinceStart += lifetimeCpu(m, uptime).cpuPercent
    }
    const pids = members.map((m) => m.pid).join(",")
    const before = previous.get(id)
    const cpu =
      before !== undefined && before.pids === pids && now > before.at
        ? ((ticks - before.ticks) / CLOCK_TICKS_PER_SECOND / ((now - before.at) / 1000)) * 100
        : sinceStart
    previous.set(id, { ticks, at: now, pids })
    out.set(id, {
      activePort: r.ports.find((p) => ports.includes(p)) ?? ports[0] ?? null,
      cpuPercent: Math.max(0, Math.round(cpu * 10) / 10),
      memoryBytes,
    })
  }
  return out
}
