// glibc's malloc for the background supervisor: fixed thresholds instead of the dynamic ones.
// By default glibc raises its mmap threshold (and with it the trim threshold) each time a large
// block is freed, after which memory V8's compilers and parsers freed stays in the process;
// fixed at 128 KiB, the top of the heap goes back to the system. A few MiB less resident memory
// at idle (docs/benchmarks.md, memory per subsystem). Tunables are read when a process starts,
// so they are given in the supervisor's environment and taken out of it again at once
// (`dropMallocTuning`): no daemon, hook or check inherits them. Other C libraries ignore them.

export const MALLOC_TUNABLES = "glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072"
/** Says that GLIBC_TUNABLES was set by the spawn, not by the user. */
export const MALLOC_TUNED = "SUPERVISOR_MALLOC_TUNED"

/** The environment to spawn the supervisor with; a caller's own GLIBC_TUNABLES is left as it is. */
export const withMallocTuning = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  env.GLIBC_TUNABLES !== undefined ? env : { ...env, GLIBC_TUNABLES: MALLOC_TUNABLES, [MALLOC_TUNED]: "1" }

/** In the supervisor, before anything is spawned: its environment as the caller had it. */
export const dropMallocTuning = (env: NodeJS.ProcessEnv): void => {
  if (env[MALLOC_TUNED] === undefined) return
  delete env[MALLOC_TUNED]
  delete env.GLIBC_TUNABLES
}
