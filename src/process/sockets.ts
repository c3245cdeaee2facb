import * as fs from "node:fs"
import { listPids, readText } from "./procfs.js"

/**
 * Which TCP ports processes listen on, read from Linux `/proc`. Like `procfs.ts`: plain synchronous
 * functions, and a process that vanishes (or that we may not inspect) is simply not found.
 *
 * The kernel lists sockets by inode in `/proc/net/tcp{,6}`; a process's open sockets appear as
 * `socket:[inode]` links in `/proc/<pid>/fd`. Joining the two gives "who listens on which port"
 * without running `ss` or `lsof`.
 */

/** The process that holds a port, as far as we can see it. */
export interface PortHolder {
  readonly pid: number
  /** `/proc/<pid>/comm`: the kernel's (at most 15 character) name of the process. */
  readonly name: string
}

/** `st` column value of a socket in the LISTEN state (include/net/tcp_states.h). */
const TCP_LISTEN = "0A"

/**
 * Parses the text of `/proc/net/tcp` or `/proc/net/tcp6` into inode → local port, LISTEN rows only.
 * A row reads `sl local_address rem_address st ... uid timeout inode ...`, the local address being
 * `HEXADDR:HEXPORT`. Inode 0 (a socket being torn down) is skipped.
 */
export const parseListening = (text: string): ReadonlyMap<number, number> => {
  const sockets = new Map<number, number>()
  for (const line of text.split("\n").slice(1)) {
    const fields = line.trim().split(/\s+/)
    const local = fields[1]
    if (fields[3] !== TCP_LISTEN || local === undefined) continue
    const port = Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16)
    const inode = Number(fields[9])
    if (Number.isInteger(port) && Number.isInteger(inode) && inode > 0) sockets.set(inode, port)
  }
  return sockets
}

/** Every listening TCP socket (IPv4 and IPv6) of this network namespace: inode → port. */
export const listeningSockets = (): ReadonlyMap<number, number> => readListeningSockets() ?? new Map()

/** Like `listeningSockets`, but undefined where `/proc/net/tcp` cannot be read (not Linux). */
export const readListeningSockets = (): ReadonlyMap<number, number> | undefined => {
  const v4 = readText("/proc/net/tcp")
  if (v4 === undefined) return undefined
  return new Map([...parseListening(v4), ...parseListening(readText("/proc/net/tcp6") ?? "")])
}

/** The inodes of the sockets listening on `port` (one per address and family). */
export const inodesOn = (port: number, table: ReadonlyMap<number, number>): ReadonlySet<number> => {
  const inodes = new Set<number>()
  for (const [inode, p] of table) if (p === port) inodes.add(inode)
  return inodes
}

/** Whether one of `pids` holds one of the sockets `inodes`. */
export const holdsAny = (pids: ReadonlyArray<number>, inodes: ReadonlySet<number>): boolean =>
  pids.some((pid) => socketInodesOf(pid).some((inode) => inodes.has(inode)))

/** Inodes of the sockets a process has open; empty when it is gone or not ours to inspect. */
export const socketInodesOf = (pid: number): ReadonlyArray<number> => {
  let fds: ReadonlyArray<string>
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  return fds.flatMap((fd) => {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))
      return match?.[1] === undefined ? [] : [Number(match[1])]
    } catch {
      return [] // the fd was closed between readdir and readlink
    }
  })
}

/**
 * The number of fds a process has open: the size of `/proc/<pid>/fd` (Linux 6.2 and later);
 * undefined where the kernel says 0 (older ones) or the process is gone.
 */
export const openFdCount = (pid: number): number | undefined => {
  try {
    const size = fs.statSync(`/proc/${pid}/fd`).size
    return size > 0 ? size : undefined
  } catch {
    return undefined
  }
}

/** How long `makeSocketInodes` trusts a process's socket inodes while its number of fds stays the same. */
export const SOCKET_INODES_KEPT_MS = 30_000

/**
 * `socketInodesOf` that reads a process's fds again only when their number changed (one `stat`
 * instead of a `readdir` and a `readlink` per fd), or once what it read is older than between half
 * of `keptMillis` and all of it (a process that closed one fd and opened a socket in between, or a
 * pid reused by a process with as many fds, is seen by then at the latest). The age at which each
 * process is read again is drawn at random, so that the processes read in one pass are not all
 * read again in one later pass (200 daemons' fds: 10-20 ms at once). Where the kernel does not
 * count fds, every call reads them.
 */
export const makeSocketInodes = (
  keptMillis = SOCKET_INODES_KEPT_MS,
  now: () => number = Date.now,
  read: (pid: number) => ReadonlyArray<number> = socketInodesOf,
  fdCount: (pid: number) => number | undefined = openFdCount,
  random: () => number = Math.random,
) => {
  const kept = new Map<
    number,
    { readonly count: number; readonly inodes: ReadonlyArray<number>; readonly until: number }
  >()
  let swept = 0
  return (pid: number): ReadonlyArray<number> => {
    const t = now()
    if (t - swept >= keptMillis) {
      swept = t
      for (const [p, e] of kept) if (t >= e.until) kept.delete(p)
    }
    const count = fdCount(pid)
    const before = kept.get(pid)
    if (count !== undefined && before !== undefined && before.count === count && t < before.until)
      return before.inodes
    const inodes = read(pid)
    if (count === undefined) kept.delete(pid)
    else kept.set(pid, { count, inodes, until: t + keptMillis * (0.5 + 0.5 * random()) })
    return inodes
  }
}

/**
 * Sorted, unique TCP ports any of `pids` listens on (e.g. a daemon's whole process tree). Pass
 * `table` to read the listening sockets once for several calls: a map, or a function that reads
 * it on first use (see `onDemand`). The table is only consulted when one of `pids` holds a socket:
 * reading `/proc/net/tcp{,6}` walks the kernel's whole connection hash, several milliseconds on
 * a machine with much memory, and most daemons of a listing (workers, `sleep`) hold none.
 */
export const listeningPortsOf = (
  pids: ReadonlyArray<number>,
  table: ReadonlyMap<number, number> | (() => ReadonlyMap<number, number>) = listeningSockets,
  inodesOf: (pid: number) => ReadonlyArray<number> = socketInodesOf,
): ReadonlyArray<number> => {
  const inodes = pids.flatMap(inodesOf)
  if (inodes.length === 0) return []
  const sockets = typeof table === "function" ? table() : table
  const ports = new Set<number>()
  for (const inode of inodes) {
    const port = sockets.get(inode)
    if (port !== undefined) ports.add(port)
  }
  return [...ports].sort((a, b) => a - b)
}

/** `read` called at most once, on the first call of the returned function. */
export const onDemand = <A>(read: () => A): (() => A) => {
  let value: { readonly a: A } | undefined
  return () => {
    value ??= { a: read() }
    return value.a
  }
}

/**
 * The process listening on `port`, for naming it in a conflict. Processes are tried in pid order so
 * that a pre-forked server (workers sharing the parent's socket) is reported as its parent.
 * Only processes whose `/proc/<pid>/fd` we may read can be found (all of them as root).
 */
export const portHolder = (port: number): PortHolder | undefined =>
  socketHolder(inodesOn(port, listeningSockets()))

/** The first process (in pid order) that holds one of the sockets `inodes`, with its name. */
export const socketHolder = (inodes: ReadonlySet<number>): PortHolder | undefined => {
  if (inodes.size === 0) return undefined
  for (const pid of [...listPids()].sort((a, b) => a - b)) {
    if (!socketInodesOf(pid).some((inode) => inodes.has(inode))) continue
    const comm = readText(`/proc/${pid}/comm`)
    if (comm !== undefined) return { pid, name: comm.replace(/\n$/, "") }
  }
  return undefined
}
