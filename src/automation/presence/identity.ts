// Who a pid is: its start time from /proc/<pid>/stat. A pid that is gone, a zombie, or that now
// belongs to a process started at another time (reused) is not the shell or host we recorded.
import { isExitedState, readStat } from "../../process/procfs.js"

/** The start time (clock ticks since boot, as the kernel wrote it) of a live process; undefined if gone. */
export const processStartTime = (pid: number): string | undefined => {
  const stat = readStat(pid)
  return stat === undefined || isExitedState(stat.state) ? undefined : stat.startTime
}
