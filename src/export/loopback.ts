// Spotting a daemon that binds the loopback address: inside a container, such a daemon cannot be
// reached through the container's published ports, nor by the other services.

import type { ResolvedDaemon } from "../domain/ResolvedConfig.js"

/** 127.0.0.1 (any 127.x.y.z), localhost, ::1 or [::1], with an optional `:PORT`, as a whole word. */
const LOOPBACK = String.raw`(?:127(?:\.\d{1,3}){3}|localhost|\[::1\]|::1)(?::\d+)?(?![\w.:-])`

/**
 * In a command: a bind option (`--host`, `--bind`, `--listen`, `--address`, `--addr`, `--ip`,
 * `-b`) or the word `bind`, then the address; or a Node `.listen(..., "127.0.0.1")`.
 */
const IN_RUN = [
  new RegExp(
    String.raw`(?:^|[\s;&|(])(?:--(?:host|hostname|bind|bind-address|listen|listen-address|address|addr|ip)|-b|bind)(?:=|\s+)["']?(${LOOPBACK})`,
  ),
  new RegExp(String.raw`\.listen\([^)]*?["'](${LOOPBACK})["']`),
]

/** Environment variables that name the address a server binds (not one it connects to). */
const BIND_VARS = /^(?:HOST|BIND|ADDR|ADDRESS|LISTEN|(?:BIND|LISTEN|SERVER|HTTP)_(?:HOST|ADDR|ADDRESS))$/
const IN_VALUE = new RegExp(String.raw`^\s*(${LOOPBACK})\s*$`)

/** Where a daemon's `run` and `env` bind a loopback address: `[key, what it says]` each. */
export const loopbackBinds = (
  run: string,
  env: Readonly<Record<string, string>>,
): ReadonlyArray<readonly [string, string]> => {
  const found: Array<readonly [string, string]> = []
  for (const re of IN_RUN) {
    const m = re.exec(run)
    if (m !== null) {
      found.push(["run", m[0].trim()])
      break
    }
  }
  for (const [k, v] of Object.entries(env))
    if (BIND_VARS.test(k.toUpperCase()) && IN_VALUE.test(v)) found.push([`env.${k}`, `${k}=${v.trim()}`])
  return found
}

/** A loopback host (`127.0.0.1`, `localhost`, `[::1]`) then `:PORT`, not inside a longer name. */
const LOOPBACK_WITH_PORT = /(?<![\w.-])(?:127(?:\.\d{1,3}){3}|localhost|\[::1\]):(\d{1,5})(?!\d)/g

/**
 * `value` with each loopback address of another daemon's port (`localhost:5432`, what
 * `localhost:{{ daemons.db.port }}` renders to) addressed by that daemon's name on the network
 * (`shop--db:5432`). `owner` names the host that serves a port, or undefined when none (or the
 * daemon itself) does.
 */
export const addressedByName = (value: string, owner: (port: number) => string | undefined): string =>
  value.replace(LOOPBACK_WITH_PORT, (whole, port: string) => {
    const host = owner(Number(port))
    return host === undefined ? whole : `${host}:${port}`
  })

/** Each port and the daemon that declares it; a port two of them declare maps to undefined. */
export const portOwnersOf = (daemons: ReadonlyArray<ResolvedDaemon>) => {
  const owners = new Map<number, ResolvedDaemon | undefined>()
  for (const d of daemons)
    for (const port of d.config.port?.expect ?? []) owners.set(port, owners.has(port) ? undefined : d)
  return owners
}

/**
 * `addressedByName` for daemon `self`: another daemon's port (`owners`, from `portOwnersOf`) is
 * that daemon by `nameOf`; its own ports stay as written.
 */
export const addressedByOthers =
  (
    owners: ReadonlyMap<number, ResolvedDaemon | undefined>,
    self: ResolvedDaemon,
    nameOf: (d: ResolvedDaemon) => string,
  ) =>
  (value: string): string =>
    addressedByName(value, (port) => {
      const owner = owners.get(port)
      return owner === undefined || owner === self ? undefined : nameOf(owner)
    })
