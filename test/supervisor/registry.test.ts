import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import { DaemonDefinition } from "../../src/domain/DaemonDefinition.js"
import { encodeDefinition } from "../../src/supervisor/registry.js"

const decodeConfig = Schema.decodeUnknownSync(DaemonConfig)
const id = { namespace: "shop", name: "api", qualified: "shop/api", safe_path: "shop--api" }

// Every kind of value a configuration can hold: durations, sizes, ports, cron, hooks, readiness.
const full = decodeConfig({
  run: "node server.js",
  dir: "/srv/shop",
  env: { NODE_ENV: "production" },
  retry: 3,
  depends: ["shop/db"],
  port: { expect: [3000, 3001], bump: 5 },
  stop_signal: { signal: "INT", timeout: "2s" },
  ready_http: "http://127.0.0.1:{{ daemons.db.port }}/health",
  ready_delay: 1.5,
  cron: "0 0 * * * *",
  memory_limit: "512MiB",
  cpu_limit: 150,
  watch: ["src/**/*.ts"],
  hooks: { on_ready: "echo ready", on_output: { run: "notify", filter: "ERROR" } },
})

describe("encodeDefinition (the definition saved in the state file)", () => {
  it("is the schema's encoding of the definition, for a minimal and a full configuration", () => {
    for (const config of [new DaemonConfig({ run: "sleep 1", dir: "/d" }), full]) {
      for (const def of [
        { id, config, adhoc: false, source: "/srv/shop/supervisor.toml" },
        { id, config, adhoc: true, source: null },
        // an instance of a daemon with `instances` stays one in the state file
        {
          id,
          config,
          adhoc: false,
          source: "/srv/shop/supervisor.toml",
          instance: { daemon: "shop/api", index: 2 },
        },
      ] satisfies Array<DaemonDefinition>) {
        const mine = encodeDefinition(def)
        expect(mine).toEqual(Schema.encodeSync(DaemonDefinition)(def))
        expect(Schema.decodeUnknownSync(DaemonDefinition)(mine)).toEqual(def)
      }
    }
  })

  it("encodes a configuration once, however many definitions are made around it", () => {
    const a = encodeDefinition({ id, config: full, adhoc: false, source: null })
    const b = encodeDefinition({ id: { ...id }, config: full, adhoc: false, source: null })
    expect(b.config).toBe(a.config)
    const other = decodeConfig({ run: "node server.js", dir: "/srv/shop" })
    expect(encodeDefinition({ id, config: other, adhoc: false, source: null }).config).not.toBe(a.config)
  })
})
