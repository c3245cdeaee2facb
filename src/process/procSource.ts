import type { ProcessReading } from "./processTrees.js"
import {
  CLOCK_TICKS_PER_SECOND,
  lifetimeCpu,
  listPids,
  PAGE_SIZE,
  type ProcStat,
  readStat,
  readSystemUptime,
} from "./procfs.js"
import { listeningPortsOf, listeningSockets, makeSocketInodes, onDemand } from "./sockets.js"

/** Where the sampler's readings come from: `/proc` (below), or a fake. */
export interface ProcSource {
  readonly listPids: () => ReadonlyArray<number>
  /** A reader for one pass (facts shared by its readings, such as the uptime, are read once). */
  readonly reader: () => (pid: number) => ProcessReading | undefined
  readonly listeningPorts: (
    groups: ReadonlyArray<ReadonlyArray<number>>,
  ) => ReadonlyArray<ReadonlyArray<number>>
}

/** A process's reading from its `/proc/<pid>/stat` line (the stat line has the rss: no second file). */
export const readingOf = (stat: ProcStat, systemUptimeSecs: number): ProcessReading => ({
  pid: stat.pid,
  ppid: stat.ppid,
  pgrp: stat.pgrp,
  startTime: stat.startTime,
  cpuSeconds: (stat.utime + stat.stime) / CLOCK_TICKS_PER_SECOND,
  memoryBytes: stat.rss * PAGE_SIZE,
  lifetimeCpuPercent: lifetimeCpu(stat, systemUptimeSecs).cpuPercent,
})

/** Linux `/proc`: the source of the live sampler (each source remembers the processes' sockets). */
export const makeProcSource = (): ProcSource => {
  const socketInodes = makeSocketInodes()
  return {
    listPids,
    reader: () => {
      const uptime = readSystemUptime()
      return (pid) => {
        const stat = readStat(pid)
        return stat === undefined ? undefined : readingOf(stat, uptime)
      }
    },
    listeningPorts: (groups) => {
      // the socket table only when a member holds a socket, and then once for every group
      const table = onDemand(listeningSockets)
      return groups.map((pids) => listeningPortsOf(pids, table, socketInodes))
    },
  }
}
