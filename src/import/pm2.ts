// A PM2 ecosystem file's apps (already loaded: pm2Load.ts) as supervisor daemons. Keys are
// PM2's (pm2.keymetrics.io, "Ecosystem File"); what has no equivalent is a warning.
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { TomlValue } from "../config/edit/daemonToml.js"
import { shellWord } from "../shell/quote.js"
import { pm2Instances } from "./instances.js"
import { Collector, envTable, type Imported, ImportFailed, isRecord } from "./model.js"

/** Keys read below; any other key of an app is a warning. */
const MAPPED = new Set([
  "name",
  "script",
  "args",
  "interpreter",
  "interpreter_args",
  "node_args",
  "cwd",
  "env",
  "instances",
  "exec_mode",
  "autorestart",
  "max_restarts",
  "watch",
  "ignore_watch",
  "cron_restart",
  "max_memory_restart",
  "kill_timeout",
])

/** Keys with nothing to map to, and why (said once per app). */
const WHY: Readonly<Record<string, string>> = {
  out_file: "the supervisor keeps each daemon's output in its own log store (`supervisor logs`)",
  error_file: "the supervisor keeps each daemon's output in its own log store (`supervisor logs`)",
  log_file: "the supervisor keeps each daemon's output in its own log store (`supervisor logs`)",
  log_date_format: "log lines are timestamped by the supervisor",
  merge_logs: "the supervisor keeps one log per daemon",
  min_uptime: "every exit that is not a stop counts as a crash for `retry`",
  restart_delay: "retries follow the supervisor's own back-off",
  exp_backoff_restart_delay: "retries follow the supervisor's own back-off",
  watch_delay: "the debounce is the setting supervisor.file_watch_debounce",
  wait_ready: "use a ready check (ready_output, ready_http, ready_port or ready_cmd)",
  listen_timeout: "use a ready check with a timeout",
}

const SCRIPT_EXT = /\.(c|m)?js$/

/** The command line of an app: `exec [interpreter [its args]] script [args]`. */
const runOf = (app: Record<string, unknown>, key: string, c: Collector): string => {
  const script = app.script as string
  const words = (v: unknown, at: string): Array<string> => {
    if (v === undefined) return []
    if (typeof v === "string") return v.trim() === "" ? [] : [v.trim()]
    if (Array.isArray(v) && v.every((w) => typeof w === "string")) return v.map(shellWord)
    c.warn(at, "expected a string or an array of strings: not imported")
    return []
  }
  const interpreter = typeof app.interpreter === "string" ? app.interpreter : undefined
  const interpreterArgs = [
    ...words(app.node_args, `${key}.node_args`),
    ...words(app.interpreter_args, `${key}.interpreter_args`),
  ]
  const program =
    interpreter === "none"
      ? []
      : interpreter !== undefined
        ? [shellWord(interpreter), ...interpreterArgs]
        : SCRIPT_EXT.test(script)
          ? ["node", ...interpreterArgs]
          : []
  return ["exec", ...program, shellWord(script), ...words(app.args, `${key}.args`)].join(" ")
}

/**
 * `retry` from autorestart/max_restarts: PM2 restarts a crashed app without limit unless told;
 * `autorestart: false` is restart = "never" (no retry written).
 */
const retryOf = (app: Record<string, unknown>, key: string, c: Collector): TomlValue | undefined => {
  if (app.autorestart === false) return undefined
  if (app.max_restarts === undefined) return true
  if (typeof app.max_restarts === "number" && Number.isInteger(app.max_restarts) && app.max_restarts >= 0)
    return app.max_restarts
  c.warn(`${key}.max_restarts`, "not a non-negative integer: retry = true (no limit) instead")
  return true
}

/** Watch globs, relative to the written file's directory (`base`: where the ecosystem file is). */
const watchOf = (
  app: Record<string, unknown>,
  key: string,
  base: string,
  dir: string | undefined,
  c: Collector,
) => {
  const root = dir ?? "."
  const glob = (p: string) => {
    const rel = nodePath.isAbsolute(p) ? p : nodePath.join(root, p)
    const abs = nodePath.resolve(base, rel)
    const isDir = !/[*?[{]/.test(p) && fs.existsSync(abs) && fs.statSync(abs).isDirectory()
    return (isDir ? `${rel.replace(/\/+$/, "")}/**/*` : rel).replace(/^\.\//, "")
  }
  if (app.ignore_watch !== undefined) {
    const ignored = Array.isArray(app.ignore_watch) ? app.ignore_watch : [app.ignore_watch]
    const beyond = ignored.filter((p) => !/^(\.\/)?(node_modules|\.git)\/?$/.test(String(p)))
    if (beyond.length > 0)
      c.warn(
        `${key}.ignore_watch`,
        `${beyond.map((p) => JSON.stringify(p)).join(", ")} not imported: the supervisor has no ignore list (node_modules and .git are always left out); narrow the watch globs instead`,
      )
  }
  if (app.watch === true) return [dir === undefined ? "**/*" : `${dir.replace(/\/+$/, "")}/**/*`]
  if (app.watch === false || app.watch === undefined) return undefined
  const list = typeof app.watch === "string" ? [app.watch] : app.watch
  if (Array.isArray(list) && list.every((p) => typeof p === "string")) return list.map(glob)
  c.warn(`${key}.watch`, "expected true, a path or an array of paths: not imported")
  return undefined
}

/** PM2's memory sizes count K, M and G in powers of 1024. */
const memoryOf = (v: unknown, key: string, c: Collector): string | undefined => {
  if (v === undefined) return undefined
  if (typeof v === "number" && v > 0) return `${v}B`
  const m = typeof v === "string" ? /^\s*(\d+(?:\.\d+)?)\s*([KMG])?B?\s*$/i.exec(v) : null
  if (m !== null) return m[2] === undefined ? `${m[1]}B` : `${m[1]}${m[2].toUpperCase()}iB`
  c.warn(key, `${JSON.stringify(v)} is not a size like "300M": not imported`)
  return undefined
}

/** PM2 takes 5 or 6 cron fields; the supervisor 6 (seconds first). A restart per firing: retrigger "always". */
const cronOf = (v: unknown, key: string, c: Collector): TomlValue | undefined => {
  if (v === undefined) return undefined
  const fields = typeof v === "string" ? v.trim().split(/\s+/) : []
  if (fields.length === 5 || fields.length === 6)
    return { schedule: (fields.length === 5 ? ["0", ...fields] : fields).join(" "), retrigger: "always" }
  c.warn(key, `${JSON.stringify(v)} is not a cron expression of 5 or 6 fields: not imported`)
  return undefined
}

/** Milliseconds as a duration: whole seconds as `3s`, else `1500ms`. */
const millis = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${Math.round(ms)}ms`)

/** The daemons of a loaded ecosystem file (`module.exports = { apps: [...] }`); `file` names it. */
export const importPm2 = (loaded: unknown, file: string): Imported | ImportFailed => {
  const apps = isRecord(loaded) ? loaded.apps : Array.isArray(loaded) ? loaded : undefined
  const fix = "an ecosystem file exports { apps: [{ name, script, ... }] }"
  if (!Array.isArray(apps) || apps.length === 0)
    return new ImportFailed({ file, key: "apps", problem: "no apps found", hint: fix })
  const c = new Collector()
  const base = nodePath.dirname(file)
  if (isRecord(loaded))
    for (const k of Object.keys(loaded))
      if (k !== "apps") c.warn(k, "not imported: only apps[] is read (deploy targets have no equivalent)")
  for (const [i, app] of apps.entries()) {
    const key = `apps[${i}]`
    if (!isRecord(app) || typeof app.script !== "string" || app.script.trim() === "")
      return new ImportFailed({
        file,
        key: `${key}.script`,
        problem: "missing: the command to run",
        hint: fix,
      })
    const name =
      typeof app.name === "string" ? app.name : nodePath.basename(app.script).replace(SCRIPT_EXT, "")
    const id = c.name(name, `${key}.name`)
    for (const k of Object.keys(app)) {
      if (MAPPED.has(k)) continue
      if (/^env_/.test(k)) c.warn(`${key}.${k}`, `not imported: only env is (${k} is selected by pm2 --env)`)
      else c.warn(`${key}.${k}`, `not imported: ${WHY[k] ?? "no equivalent"}`)
    }
    const counted = pm2Instances(app.instances, `${key}.instances`, c)
    // one process needs no key; several are named <name>.1 to <name>.N
    const instances = counted !== undefined && counted > 1 ? counted : undefined
    if (app.exec_mode !== undefined && app.exec_mode !== "fork" && app.exec_mode !== "fork_mode")
      c.warn(
        `${key}.exec_mode`,
        `${JSON.stringify(app.exec_mode)}: no cluster mode; each instance is a process of its own with its own PORT, and the proxy balances a slug over them`,
      )
    const dir = typeof app.cwd === "string" ? app.cwd : undefined
    if (app.cwd !== undefined && dir === undefined) c.warn(`${key}.cwd`, "not a string: not imported")
    // PM2 stops an app with SIGINT, then SIGKILL after kill_timeout (ms)
    const killTimeout = app.kill_timeout
    const timed = typeof killTimeout === "number" && killTimeout >= 0
    if (killTimeout !== undefined && !timed) c.warn(`${key}.kill_timeout`, "not a number of ms: not imported")
    const stop: TomlValue = timed ? { signal: "SIGINT", timeout: millis(killTimeout) } : "SIGINT"
    c.add(id, [
      ["run", runOf(app, key, c)],
      ["dir", dir],
      ["env", envTable(app.env, `${key}.env`, c)],
      ["instances", instances],
      ["retry", retryOf(app, key, c)],
      ["restart", app.autorestart === false ? "never" : undefined],
      ["watch", watchOf(app, key, base, dir, c)],
      ["cron", cronOf(app.cron_restart, `${key}.cron_restart`, c)],
      ["memory_limit", memoryOf(app.max_memory_restart, `${key}.max_memory_restart`, c)],
      ["stop_signal", stop],
    ])
  }
  return c.result()
}
