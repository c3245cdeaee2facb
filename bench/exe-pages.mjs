// Which parts of a process's executable are resident: its pages read from /proc/<pid>/pagemap
// (present bit; needs root or the process's owner), named by the ELF section and the nearest
// symbol before them (readelf and nm, from binutils). The executable is the largest part of a Node
// process's RSS; this tells the code and data a program made it touch (V8's optimising compiler,
// ICU's time-zone data, the sources of Node's built-in modules) from what `node -e 0` touches.
// Usage: node bench/exe-pages.mjs PID [--symbols N] [--vs PID2]
//   --symbols N: the N symbols holding the most resident pages (default 25)
//   --vs PID2: each figure as PID's minus PID2's (two processes of the same executable)
import { spawnSync } from "node:child_process"
import { closeSync, openSync, readFileSync, readlinkSync, readSync } from "node:fs"

const args = process.argv.slice(2)
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? fallback : args[i + 1]
}
const PAGE = 4096

/** File offsets of the executable's resident pages in process `pid`. */
const residentOffsets = (pid, exe) => {
  const out = []
  const fd = openSync(`/proc/${pid}/pagemap`, "r")
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
      const p = line.split(/\s+/)
      if (p[5] !== exe) continue
      const [start, end] = p[0].split("-").map((x) => Number.parseInt(x, 16))
      const offset = Number.parseInt(p[2], 16)
      const pages = (end - start) / PAGE
      const buf = Buffer.alloc(pages * 8)
      readSync(fd, buf, 0, buf.length, (start / PAGE) * 8)
      for (let i = 0; i < pages; i++) if (buf.readBigUInt64LE(i * 8) >> 63n) out.push(offset + i * PAGE)
    }
  } finally {
    closeSync(fd)
  }
  return out
}

const run = (cmd, argv) => {
  const r = spawnSync(cmd, argv, { encoding: "utf8", maxBuffer: 1 << 30 })
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(" ")}: ${r.stderr || r.error}`)
  return r.stdout
}

/** The executable's sections (file offset, size, address) and its symbols, sorted by address. */
const layout = (exe) => {
  const sections = []
  for (const line of run("readelf", ["-SW", exe]).split("\n")) {
    const m = /\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)/.exec(line)
    if (m !== null)
      sections.push({
        name: m[1],
        addr: Number.parseInt(m[2], 16),
        off: Number.parseInt(m[3], 16),
        size: Number.parseInt(m[4], 16),
      })
  }
  const symbols = []
  for (const line of run("nm", ["-C", "-n", "--defined-only", exe]).split("\n")) {
    const m = /^([0-9a-f]+) [tTrRdDbBvVwW] (.*)$/.exec(line)
    if (m !== null) symbols.push({ addr: Number.parseInt(m[1], 16), name: m[2] })
  }
  return { sections, symbols }
}

const nearest = (symbols, addr) => {
  let lo = 0
  let hi = symbols.length - 1
  if (hi < 0 || symbols[0].addr > addr) return "(none)"
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (symbols[mid].addr <= addr) lo = mid
    else hi = mid - 1
  }
  return symbols[lo].name.slice(0, 100)
}

/** KiB resident by section and by (section, nearest symbol). */
const tally = (pid, exe, where) => {
  const bySection = new Map()
  const bySymbol = new Map()
  for (const off of residentOffsets(pid, exe)) {
    const s = where.sections.find((x) => x.off <= off && off < x.off + Math.max(x.size, 1))
    const name = s?.name ?? "(headers)"
    bySection.set(name, (bySection.get(name) ?? 0) + PAGE / 1024)
    if (s !== undefined && (name === ".text" || name === ".rodata")) {
      const key = `${name} ${nearest(where.symbols, s.addr + off - s.off)}`
      bySymbol.set(key, (bySymbol.get(key) ?? 0) + PAGE / 1024)
    }
  }
  return { bySection, bySymbol }
}

const pid = Number(args[0])
if (!Number.isInteger(pid)) throw new Error("usage: node bench/exe-pages.mjs PID [--symbols N] [--vs PID2]")
const exe = readlinkSync(`/proc/${pid}/exe`)
const where = layout(exe)
const a = tally(pid, exe, where)
const vs = opt("vs", undefined)
const b = vs === undefined ? undefined : tally(Number(vs), exe, where)
const diff = (x, y) => {
  const keys = new Set([...x.keys(), ...(y?.keys() ?? [])])
  return [...keys].map((k) => [k, (x.get(k) ?? 0) - (y?.get(k) ?? 0)]).sort((p, q) => q[1] - p[1])
}
const mib = (kib) => (kib / 1024).toFixed(2).padStart(7)
const sections = diff(a.bySection, b?.bySection)
console.log(
  `${exe}, pid ${pid}${vs ? ` minus pid ${vs}` : ""}: ${mib(sections.reduce((t, [, v]) => t + v, 0))} MiB resident`,
)
for (const [k, v] of sections) if (Math.abs(v) >= 64) console.log(`${mib(v)} MiB  ${k}`)
console.log("by the nearest symbol before the pages:")
for (const [k, v] of diff(a.bySymbol, b?.bySymbol).slice(0, Number(opt("symbols", 25))))
  console.log(`${mib(v)} MiB  ${k}`)
