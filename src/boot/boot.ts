import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { Data, Effect } from "effect"
import type { BootChange, BootState, SystemctlRun } from "../domain/BootOutput.js"
import { isExecutableFile } from "../process/executable.js"
import {
  type BootCommand,
  type BootLocation,
  bootFileText,
  commandOf,
  isOurs,
  LAUNCHD_LABEL,
  OLD_UNIT_NAME,
  UNIT_NAME,
} from "./files.js"

// `supervisor boot enable|disable|status`: the decisions, on the files of a BootLocation
// (src/boot/files.ts). Everything about the machine is in BootContext, so that tests run them in
// temp dirs with a fake systemctl.

export interface BootContext {
  readonly location: BootLocation
  /** What the boot file should run now: this Node and this CLI. */
  readonly command: BootCommand
  /** `systemctl` on PATH, if any. */
  readonly systemctl: string | undefined
}

/** A boot file that cannot be written or removed: the path, why, and what to do. */
export class BootError extends Data.TaggedError("BootError")<{ readonly message: string }> {}

/** `name` on `pathEnv`, as a shell would find it (absolute entries only). */
export const findOnPath = (name: string, pathEnv: string | undefined): string | undefined =>
  (pathEnv ?? "")
    .split(":")
    .filter((dir) => nodePath.isAbsolute(dir))
    .map((dir) => nodePath.join(dir, name))
    .find(isExecutableFile)

const readText = (file: string) => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}
const isLink = (path: string) => {
  try {
    return fs.lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/** Why the command of a boot file is not this one (empty when it is). */
export const staleReasons = (
  found: { readonly node: string; readonly cli: string } | undefined,
  current: BootCommand,
): Array<string> => {
  if (found === undefined) return ["it runs no supervisor command"]
  const check = (what: string, path: string, now: string) =>
    path === now
      ? []
      : [
          fs.existsSync(path)
            ? `its ${what} ${path} is not this one (${now})`
            : `its ${what} ${path} no longer exists (this one is ${now})`,
        ]
  return [...check("node", found.node, current.node), ...check("CLI", found.cli, current.cli)]
}

const linkTarget = (path: string) => {
  try {
    return fs.readlinkSync(path)
  } catch {
    return undefined
  }
}

/**
 * Our unit under the old name (OLD_UNIT_NAME), when its mark says it is ours: `status` shows it,
 * `enable` replaces it, `disable` removes it. Another program's unit of that name is not looked at.
 */
const oldUnit = (location: BootLocation) => {
  if (location.manager !== "systemd") return undefined
  const text = readText(location.old.file)
  if (text === undefined || !isOurs("systemd", text)) return undefined
  return { ...location.old, text, linked: linkTarget(location.old.link) === location.old.file }
}

/** `boot status`: is the boot file there (and linked), is it ours, and does it run this CLI? */
export const bootStatus = (ctx: BootContext): BootState => {
  const { location } = ctx
  const text = readText(location.file)
  const ours = text !== undefined && isOurs(location.manager, text)
  const link = location.manager === "systemd" ? location.link : null
  const target = link === null ? undefined : linkTarget(link)
  const foreign = [
    ...(text !== undefined && !ours ? [location.file] : []),
    ...(link !== null && target !== undefined && target !== location.file ? [link] : []),
  ]
  const old = oldUnit(location)
  // no unit of the new name: the old-named one of ours is the one in force
  const shown = text === undefined ? old : undefined
  const written = ours || shown !== undefined
  const found = ours ? commandOf(location.manager, text) : shown && commandOf("systemd", shown.text)
  const renamed =
    old === undefined
      ? []
      : shown !== undefined
        ? [`it has the old name ${OLD_UNIT_NAME}, which Debian's supervisor package (supervisord) uses too`]
        : [`an older unit of ours, ${old.file}, is there too`]
  return {
    manager: location.manager,
    scope: location.scope,
    file: shown?.file ?? location.file,
    link: shown?.link ?? link,
    written,
    enabled: shown !== undefined ? shown.linked : ours && (link === null || target === location.file),
    node: found?.node ?? null,
    cli: found?.cli ?? null,
    foreign,
    stale: [...renamed, ...(written ? staleReasons(found, ctx.command) : [])],
  }
}

/** Removes each path that is there; the paths removed. */
const removeAll = (paths: ReadonlyArray<string>, fix: string) =>
  Effect.gen(function* () {
    const removed: Array<string> = []
    for (const path of paths) {
      if (!isLink(path) && !fs.existsSync(path)) continue
      yield* attempt(`remove ${path}`, fix, () => fs.rmSync(path, { force: true }))
      removed.push(path)
    }
    return removed
  })

/** The paths of our old-named unit: its link (when it points to it) and the unit. */
const oldPaths = (location: BootLocation): Array<string> => {
  const old = oldUnit(location)
  return old === undefined ? [] : [...(old.linked ? [old.link] : []), old.file]
}

const foreignError = (paths: ReadonlyArray<string>) =>
  new BootError({
    message: `${paths.join(" and ")} ${paths.length > 1 ? "are" : "is"} another program's (not written by \`supervisor boot enable\`), left alone: move it away first, or set SUPERVISOR_BOOT_SCOPE=user for a user unit`,
  })

const attempt = <A>(what: string, fix: string, f: () => A) =>
  Effect.try({
    try: f,
    catch: (e) =>
      new BootError({ message: `cannot ${what}: ${e instanceof Error ? e.message : String(e)}; ${fix}` }),
  })

/** `systemctl [--user] daemon-reload`, when there is a systemctl; what happened. */
const daemonReload = (ctx: BootContext): SystemctlRun => {
  if (ctx.location.manager !== "systemd") return { ran: false, ok: false, command: null, output: "" }
  const args = [...(ctx.location.scope === "user" ? ["--user"] : []), "daemon-reload"]
  const command = `systemctl ${args.join(" ")}`
  if (ctx.systemctl === undefined) return { ran: false, ok: false, command, output: "" }
  const run = spawnSync(ctx.systemctl, args, { encoding: "utf8", timeout: 30_000 })
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ? String(run.error) : ""}`.trim()
  return { ran: true, ok: run.status === 0, command, output }
}

/** What is left to do by hand after `enable` (null when nothing is). */
const enableNextStep = (ctx: BootContext, reload: SystemctlRun, renamed: boolean): string | null => {
  const { location } = ctx
  if (location.manager === "launchd")
    return `it starts at your next login; to start it now: launchctl load -w ${location.file}`
  const user = location.scope === "user" ? " --user" : ""
  // removing the old-named unit does not stop the supervisor it started: that is said
  if (renamed)
    return `${enableNextStep(ctx, reload, false)}; a supervisor started by the old ${OLD_UNIT_NAME} runs on until \`systemctl${user} stop ${OLD_UNIT_NAME}\``
  const linger =
    location.scope === "user" ? "; to start it at boot before you log in: loginctl enable-linger $USER" : ""
  if (!reload.ran)
    return `systemctl is not on PATH: to finish by hand, run \`systemctl${user} daemon-reload\` (or log in again), then \`systemctl${user} start ${UNIT_NAME}\` to start it now${linger}`
  if (!reload.ok)
    return `\`${reload.command}\` failed${reload.output === "" ? "" : ` (${reload.output})`}: run it again, then \`systemctl${user} start ${UNIT_NAME}\``
  return `it starts at the next ${location.scope === "user" ? "login" : "boot"}; to start it now: systemctl${user} start ${UNIT_NAME}${linger}`
}

/**
 * `boot enable`: writes the boot file for this CLI (rewriting one that runs another or a gone
 * path), links it as `systemctl enable` would, and reloads systemd when systemctl is there.
 */
export const enableBoot = (ctx: BootContext): Effect.Effect<BootChange, BootError> =>
  Effect.gen(function* () {
    const { location } = ctx
    const before = bootStatus(ctx)
    if (before.foreign.length > 0) return yield* Effect.fail(foreignError(before.foreign))
    const old = readText(location.file)
    const text = bootFileText(location, ctx.command)
    const fix = location.scope === "system" ? "run it as root" : "check the directory's permissions"
    yield* attempt(`write ${location.file}`, fix, () => {
      fs.mkdirSync(nodePath.dirname(location.file), { recursive: true })
      // a reader sees the old file or the new one, never half of one
      const tmp = `${location.file}.${process.pid}.tmp`
      fs.writeFileSync(tmp, text, { mode: 0o644 })
      fs.renameSync(tmp, location.file)
      // systemd and launchd open the log at start, and do not make its directory
      fs.mkdirSync(nodePath.dirname(ctx.command.log), { recursive: true, mode: 0o700 })
    })
    if (location.manager === "systemd") {
      const link = location.link
      yield* attempt(`link ${link} to ${location.file}`, fix, () => {
        fs.mkdirSync(nodePath.dirname(link), { recursive: true })
        if (linkTarget(link) === location.file) return
        fs.symlinkSync(location.file, link)
      })
    }
    // our unit under the old name goes, now that the new one is in force
    const removed = yield* removeAll(oldPaths(location), fix)
    const reload = daemonReload(ctx)
    return {
      ...bootStatus(ctx),
      action: "enable",
      changed: old !== text || !before.enabled || removed.length > 0,
      rewritten: before.written ? before.stale : [],
      removed,
      daemon_reload: reload,
      next_step: enableNextStep(ctx, reload, removed.length > 0),
    }
  })

/** `boot disable`: removes the link and the boot file, and reloads systemd when systemctl is there. */
export const disableBoot = (ctx: BootContext): Effect.Effect<BootChange, BootError> =>
  Effect.gen(function* () {
    const { location } = ctx
    const { foreign } = bootStatus(ctx)
    const fix = location.scope === "system" ? "run it as root" : "check the directory's permissions"
    const ours = (location.manager === "systemd" ? [location.link, location.file] : [location.file]).filter(
      (path) => !foreign.includes(path),
    )
    const removed = yield* removeAll([...ours, ...oldPaths(location)], fix)
    const reload =
      removed.length > 0 ? daemonReload(ctx) : { ran: false, ok: false, command: null, output: "" }
    const user = location.scope === "user" ? " --user" : ""
    return {
      ...bootStatus(ctx),
      action: "disable",
      changed: removed.length > 0,
      rewritten: [],
      removed,
      daemon_reload: reload,
      next_step:
        foreign.length > 0
          ? `left alone, another program's: ${foreign.join(", ")}`
          : location.manager === "launchd"
            ? removed.length > 0
              ? `if it runs now: launchctl remove ${LAUNCHD_LABEL}`
              : null
            : reload.command !== null && !reload.ran
              ? `systemctl is not on PATH: to finish by hand, run \`systemctl${user} daemon-reload\``
              : null,
    }
  })
