// Vitest runs a file's synchronous tests back to back without a turn of the event loop, so a file
// of many synchronous CLI runs (spawnSync) kept a worker from answering its runner for over a
// minute on a busy machine, and the runner's RPC timed out ("Timeout calling onTaskUpdate").
// One event-loop turn before each test bounds such a stretch by the longest single test.
import { beforeEach } from "vitest"

beforeEach(() => new Promise<void>((resolve) => setImmediate(resolve)))
