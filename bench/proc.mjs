// What the benchmarks read of a process in /proc.
import { readFileSync } from "node:fs"

/** CPU time (user + system) of a process so far, in ms (10 ms ticks of /proc/<pid>/stat). */
export const cpuMs = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // after the command's name, which may hold spaces and parentheses
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}
