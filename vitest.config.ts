import { defineConfig } from "vitest/config"

// Two cores on every machine: keep parallelism at two workers.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/setup/yieldBetweenTests.ts"],
    pool: "forks",
    poolOptions: { forks: { minForks: 1, maxForks: 2 } },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
