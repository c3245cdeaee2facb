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

/**
 * A project with what the Kubernetes export maps: dependencies of each condition (on a daemon with
 * a port, one without, one that completes), ports other daemons use, readiness with a timeout,
 * health, env files with a secret, limits, replicas and a cron schedule. Write RICH_FILES beside it.
 */
export const RICH = `env_file = "common.env"

[env]
LOG_LEVEL = "info"

[daemons.db]
run = "exec postgres -D data"
port = 5432
ready_port = { port = 5432, timeout = "30s" }
health = { port = 5432, interval = "10s" }
memory_limit = "512MiB"
cpu_limit = 50

[daemons.cache]
run = "exec redis-server"
ready_cmd = "redis-cli ping"

[daemons.migrate]
run = "./migrate.sh --db localhost:{{ daemons.db.port }}"
depends = ["db"]
retry = 2

[daemons.api]
run = "node server.js --db=localhost:{{ daemons.db.port }} --port {{ daemon.port }}"
port = 3000
instances = 2
env_file = ".env"
env = { DB = "127.0.0.1:{{ daemons.db.port }}", API_TOKEN = "s3cret-token", PCT = "100%" }
depends = ["db", { id = "migrate", condition = "completed" }, { id = "cache", condition = "started" }]
ready_http = { url = "http://127.0.0.1:{{ daemon.port }}/ready", timeout = "20s" }
health = { http = "http://127.0.0.1:{{ daemon.port }}/health", interval = "15s", failures = 4 }
memory_limit = "256MiB"

[daemons.web]
run = "node web.js"
port = 8080
env = { API_URL = "http://localhost:{{ daemons.api.port }}/v1" }
depends = [{ id = "api", condition = "ready" }]

[daemons.report]
run = "./report.sh"
cron = "0 30 2 * * 1-5"
depends = ["db"]
`

/** The env files of RICH: a secret among them, and an address of db on the loopback. */
export const RICH_FILES = {
  "shop/common.env": "REGION=eu\n",
  "shop/.env": "DATABASE_URL=postgres://app@localhost:5432/app\nDB_PASSWORD=hunter2-secret\n",
}

/** Every task group of a Nomad export's jobs, by name, with the job that holds it. */
export const nomadGroups = (
  files: ReadonlyArray<{ path: string; content: string }>,
): Map<
  string,
  { group: Record<string, unknown> & { Tasks: Array<Record<string, unknown>> }; job: Record<string, unknown> }
> => {
  const groups = new Map()
  for (const f of files) {
    const job = (
      JSON.parse(f.content) as { Job: Record<string, unknown> & { TaskGroups: Array<{ Name: string }> } }
    ).Job
    for (const g of job.TaskGroups) groups.set(g.Name, { group: g, job })
  }
  return groups
}
