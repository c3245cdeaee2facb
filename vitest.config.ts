import { defineConfig } from "vitest/config"

// Two cores on every machine: keep parallelism at two workers. A worker runs file after file
// without a fresh process each (isolate: false): importing Effect and the platform once per
// worker, not once per file, took the suite's collect time from ~400 s to ~70 s.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // the engine runs are opt-in: `npm run test:engines` (vitest.engines.config.ts)
    exclude: ["test/engines/**", "**/node_modules/**"],
    setupFiles: ["test/setup/yieldBetweenTests.ts"],
    pool: "forks",
    isolate: false,
    poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
