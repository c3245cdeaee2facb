import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"
import { loadOk, type Sandbox } from "../config/helpers.js"

/** A project using what every target maps: depends with conditions, retry, limits, cron, readiness. */
export const SHOP = `[daemons.db]
run = "exec postgres -D data"
port = 5432
ready_port = 5432
memory_limit = "512MiB"
cpu_limit = 50
retry = 3

[daemons.migrate]
run = "./migrate.sh"
depends = ["db"]

[daemons.api]
run = "node server.js --db=$DB_URL"
depends = ["db", { id = "migrate", condition = "completed" }]
ready_http = "http://127.0.0.1:{{ daemons.api.port }}/health"
port = 3000
env = { NODE_ENV = "development", DB = "localhost:{{ daemons.db.port }}", PCT = "100%" }
retry = true
watch = ["src/**"]
stop_signal = { signal = "INT", timeout = "5s" }

[daemons.report]
run = "./report.sh"
cron = "0 30 2 * * 1-5"
`

/** The merged configuration of `toml` as project `shop`, loaded like `supervisor config` does. */
export const loadShop = (sb: Sandbox, toml: string = SHOP): Promise<ResolvedConfig> => {
  sb.write({ "shop/supervisor.toml": toml })
  return loadOk(sb, { cwd: "shop" })
}

export const fileNamed = (files: ReadonlyArray<{ path: string; content: string }>, path: string): string => {
  const f = files.find((x) => x.path === path)
  if (f === undefined) throw new Error(`no file ${path} among ${files.map((x) => x.path).join(", ")}`)
  return f.content
}
