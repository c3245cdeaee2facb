/**
 * Node/V8 flags of the background supervisor (`supervisor supervisor start` and the CLI's
 * auto-start put them on its command line). The supervisor is a long-lived, mostly idle
 * process, so its heap is sized for memory rather than throughput (figures in
 * docs/benchmarks.md):
 *
 * - `--max-semi-space-size=1`: a young generation of about 3 MiB instead of up to 32 MiB, which
 *   V8 otherwise keeps after the first burst of allocation (a start of 50 daemons);
 * - `--heap-growing-percent=60`: the old generation grows by 60% over the live data before the
 *   next full collection, instead of V8's factor of up to 4x; with less, a start of 50 daemons
 *   runs a full collection in its middle;
 * - `--v8-pool-size=1`: one background thread for V8's compilers and collector instead of one
 *   per core: each thread's malloc arena kept ~15 MiB of their freed memory resident;
 * - `--compact-on-every-full-gc`: each full collection moves the live objects out of sparse
 *   pages and frees those. Without it, what a start or a listing left dead in the old
 *   generation kept its pages: 37 MiB of old space for 22 MiB live after a few starts, until
 *   V8's memory reducer ran, seconds of idleness later. No cost seen on a start of 50;
 * - `--no-sparkplug`: no baseline machine code between the interpreter and the optimising
 *   compiler (which stays on): ~3 MiB less heap, and no slower a start of 50 (bench/start-cost.mjs);
 * - `--expose-gc`: the supervisor runs one such collection itself once its socket is quiet after a
 *   burst (src/host/restCollection.ts), instead of waiting seconds for the memory reducer.
 *
 * Its malloc is tuned too, through its environment (src/host/mallocTuning.ts).
 *
 * A supervisor started in the foreground (`supervisor supervisor run`) runs with whatever
 * flags its `node` was given.
 */
// scripts/launcher.cjs recognises a supervisor started with these by the first one.
export const supervisorNodeFlags: ReadonlyArray<string> = [
  "--max-semi-space-size=1",
  "--heap-growing-percent=60",
  "--v8-pool-size=1",
  "--compact-on-every-full-gc",
  "--no-sparkplug",
  "--expose-gc",
]
