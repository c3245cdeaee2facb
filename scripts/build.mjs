// Bundles the CLI into one CommonJS file: loading node_modules file by file costs
// ~750 ms at start-up, a bundle ~160 ms (see ../shared/DESIGN.md, start-up cost).
import { chmodSync, mkdirSync } from "node:fs"
import { build } from "esbuild"

mkdirSync("dist", { recursive: true })
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/supervisor.cjs",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  banner: { js: "#!/usr/bin/env node" },
  logLevel: "warning",
})
chmodSync("dist/supervisor.cjs", 0o755)
