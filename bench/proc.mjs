// What the benchmarks read of a process in /proc.
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

/** CPU time (user + system) of a process so far, in ms (10 ms ticks of /proc/<pid>/stat). */
export const cpuMs = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // after the command's name, which may hold spaces and parentheses
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** The children of `pid` whose command name (/proc/<pid>/comm, 15 characters at most) is among `names`. */
export const childPids = (pid, names) => {
  const out = []
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const close = stat.lastIndexOf(")")
      const comm = stat.slice(stat.indexOf("(") + 1, close)
      const ppid = Number(stat.slice(close + 2).split(" ")[1])
      if (ppid === pid && names.includes(comm)) out.push(Number(entry))
    } catch {}
  }
  return out
}

/**
 * The processes that supervise on the supervisor's behalf besides its main one: its spawn helper
 * (a `spawn-helper` or `perl` child, src/process/spawnHelper.ts). Their memory counts too.
 */
export const helperPids = (pid) => childPids(pid, ["spawn-helper", "perl"])

/** Node's V8 heap pages are anonymous mappings of this size (256 KiB). */
const V8_PAGE_KIB = 256

/**
 * A process's resident memory by kind of mapping, in KiB, from the text of /proc/<pid>/smaps:
 * its executable (`exe`: the path /proc/<pid>/exe names), shared libraries and other files,
 * glibc malloc's main heap (`[heap]`), 256 KiB anonymous mappings (V8's heap pages in a Node
 * process, with how much of them is mapped: V8 gives back unused parts of a page without
 * unmapping it), the other anonymous mappings (malloc's thread arenas, V8's large objects and
 * code, thread stacks) and the main stack. `total` is the sum of every mapping's Rss.
 */
export const rssByMapping = (smaps, exe) => {
  const out = {
    exe: 0,
    files: 0,
    mallocHeap: 0,
    v8Pages: 0,
    v8PagesMapped: 0,
    otherAnon: 0,
    stack: 0,
    total: 0,
  }
  let kind = "otherAnon"
  for (const line of smaps.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head !== null) {
      const sizeKiB = (Number.parseInt(head[2], 16) - Number.parseInt(head[1], 16)) / 1024
      kind = kindOf(head[3] ?? "", sizeKiB, exe)
      if (kind === "v8Pages") out.v8PagesMapped += sizeKiB
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss === null) continue
    out[kind] += Number(rss[1])
    out.total += Number(rss[1])
  }
  return out
}

/** The kind of a mapping, by its name (a path, `[heap]`, `[stack]`, or none) and size. */
const kindOf = (name, sizeKiB, exe) => {
  if (name === exe) return "exe"
  if (name === "[heap]") return "mallocHeap"
  if (name === "[stack]") return "stack"
  if (name.startsWith("/")) return "files"
  return name === "" && sizeKiB === V8_PAGE_KIB ? "v8Pages" : "otherAnon"
}

/** `rssByMapping` of a live process (undefined when it is gone or unreadable). */
export const processRssByMapping = (pid) => {
  try {
    return rssByMapping(readFileSync(`/proc/${pid}/smaps`, "utf8"), readlinkSync(`/proc/${pid}/exe`))
  } catch {
    return undefined
  }
}
