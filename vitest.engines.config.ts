import { defineConfig } from "vitest/config"

// `npm run test:engines`: the exports run on real engines (docs/scale-out.md#a-real-engine-run).
// Opt-in, one file at a time: they install images and bring containers up.
export default defineConfig({
  test: {
    include: ["test/engines/**/*.test.ts"],
    pool: "forks",
    poolOptions: { forks: { minForks: 1, maxForks: 1 } },
    testTimeout: 600_000,
    hookTimeout: 300_000,
  },
})
