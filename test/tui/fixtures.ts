import type { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import type { StatusType } from "../../src/domain/DaemonStatus.js"

/** An API entry of a daemon, as `GET /api/daemons` has it. */
export const entry = (
  qualified: string,
  type: StatusType,
  more: Partial<ApiDaemonEntry> = {},
): ApiDaemonEntry => {
  const [namespace, name] = qualified.split("/") as [string, string]
  const running = type === "running"
  return {
    id: { qualified, namespace, name, safe_path: `${namespace}--${name}` },
    title: name,
    pid: running ? 4242 : null,
    status: { type },
    dir: "/tmp",
    cpu_percent: 1.25,
    memory_bytes: 12 * 1048576,
    uptime_secs: 75,
    proxy_url: null,
    slug: null,
    active_port: null,
    resolved_port: [],
    enabled: true,
    adhoc: false,
    run: "exec sleep 300",
    retry_count: 0,
    next_retry: null,
    source: null,
    next_run: null,
    watch_problem: null,
    pty: false,
    stdin: "null",
    ...more,
  }
}
