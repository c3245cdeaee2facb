import { readAllStats } from "../process/procfs.js"
import { listeningSockets, socketInodesOf } from "../process/sockets.js"
import { isActive, type Runtime } from "./Runtime.js"

/**
 * The `active_port` of each running daemon: a TCP port its process group is listening on right
 * now, preferring its resolved ports in their order (the first of them that is listening), else
 * the lowest port it listens on. Daemons listening on nothing are absent. One pass over /proc
 * for all of them; nothing is read when no daemon runs.
 */
export const activePorts = (runtimes: ReadonlyArray<Runtime>): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  const running = runtimes.filter((r) => isActive(r) && r.pid !== null)
  if (running.length === 0) return out
  // A daemon is spawned as the leader of its own process group: its members are its tree.
  const groups = new Map<number, Array<number>>()
  for (const stat of readAllStats()) {
    const members = groups.get(stat.pgrp)
    if (members) members.push(stat.pid)
    else groups.set(stat.pgrp, [stat.pid])
  }
  const listening = listeningSockets()
  if (listening.size === 0) return out
  for (const r of running) {
    const pid = r.pid as number
    const ports = new Set<number>()
    for (const member of groups.get(pid) ?? [pid])
      for (const inode of socketInodesOf(member)) {
        const port = listening.get(inode)
        if (port !== undefined) ports.add(port)
      }
    if (ports.size === 0) continue
    const preferred = r.ports.find((p) => ports.has(p))
    out.set(r.def.id.qualified, preferred ?? Math.min(...ports))
  }
  return out
}
