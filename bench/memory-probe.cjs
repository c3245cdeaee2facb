// Preloaded into the supervisor by bench/memory-budget.mjs (`node -r`): on SIGUSR2 it writes the
// process's memory to $SUPERVISOR_MEMORY_PROBE: RSS and V8's heap and code figures, before and
// after a full collection. Nothing of it runs until the signal.
"use strict"
process.on("SIGUSR2", () => {
  const fs = require("node:fs")
  const v8 = require("node:v8")
  const vm = require("node:vm")
  const take = () => {
    const u = process.memoryUsage()
    const h = v8.getHeapStatistics()
    const c = v8.getHeapCodeStatistics()
    return {
      rss: u.rss,
      heapUsed: u.heapUsed,
      heapTotal: u.heapTotal,
      external: u.external,
      arrayBuffers: u.arrayBuffers,
      malloced: h.malloced_memory,
      bytecode: c.bytecode_and_metadata_size,
      code: c.code_and_metadata_size,
      scriptSource: c.external_script_source_size,
      spaces: Object.fromEntries(
        v8
          .getHeapSpaceStatistics()
          .map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
      ),
    }
  }
  const before = take()
  v8.setFlagsFromString("--expose-gc")
  vm.runInNewContext("gc")()
  const after = take()
  const tmp = `${process.env.SUPERVISOR_MEMORY_PROBE}.tmp`
  fs.writeFileSync(tmp, JSON.stringify({ before, after }))
  fs.renameSync(tmp, process.env.SUPERVISOR_MEMORY_PROBE)
  // SUPERVISOR_MEMORY_SNAPSHOT=<file>: a heap snapshot too, for a closer look
  if (process.env.SUPERVISOR_MEMORY_SNAPSHOT) v8.writeHeapSnapshot(process.env.SUPERVISOR_MEMORY_SNAPSHOT)
})
