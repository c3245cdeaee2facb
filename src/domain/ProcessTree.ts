import { Schema } from "effect"

/** One process of a daemon's tree, as the API reports it (`GET /api/processes/{id}/tree`). */
export interface ProcessTreeNode {
  readonly pid: number
  readonly name: string
  readonly exe: string
  readonly cpu_percent: number
  readonly memory_bytes: number
  readonly virtual_memory_bytes: number
  readonly uptime_secs: number
  readonly thread_count: number
  readonly status: string
  readonly children: ReadonlyArray<ProcessTreeNode>
}

const Count = Schema.NonNegativeInt

export const ProcessTreeNode: Schema.Schema<ProcessTreeNode> = Schema.Struct({
  pid: Schema.Int.annotations({ description: "Process ID" }),
  name: Schema.String.annotations({ description: "Process name (the kernel's comm)" }),
  exe: Schema.String.annotations({ description: "Executable path; empty when it cannot be read" }),
  cpu_percent: Schema.NonNegative.annotations({
    description: "CPU time over the process's lifetime, as a percentage of one core",
  }),
  memory_bytes: Count.annotations({ description: "Physical memory (resident set) in bytes" }),
  virtual_memory_bytes: Count.annotations({ description: "Virtual memory size in bytes" }),
  uptime_secs: Count.annotations({ description: "Seconds since the process started" }),
  thread_count: Count.annotations({ description: "Number of threads" }),
  status: Schema.String.annotations({
    description: "OS process state: Run, Sleep, Disk, Zombie, Stop, Tracing, Idle or Dead",
  }),
  children: Schema.Array(Schema.suspend((): Schema.Schema<ProcessTreeNode> => ProcessTreeNode)).annotations({
    description: "Child processes; empty when there are none",
  }),
}).annotations({ identifier: "ProcessTreeNode", description: "A process and its descendants" })

/** Every pid of a tree: the process and all its descendants. */
export const treePids = (node: ProcessTreeNode): ReadonlyArray<number> => [
  node.pid,
  ...node.children.flatMap(treePids),
]
