import * as fs from "node:fs"

export interface Identity {
  readonly uid: number
  readonly gid: number
  readonly name: string
}

interface PasswdEntry {
  readonly name: string
  readonly uid: number
  readonly gid: number
}

const readPasswd = (path = "/etc/passwd"): Array<PasswdEntry> => {
  try {
    return fs
      .readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => l.split(":"))
      .filter((f) => f.length >= 4)
      .map((f) => ({ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]) }))
  } catch {
    return []
  }
}

/** A user name or numeric UID, looked up in /etc/passwd (a UID with no entry keeps its own number as GID). */
export const lookupUser = (user: string, passwd = readPasswd()): Identity | string => {
  if (/^\d+$/.test(user)) {
    const uid = Number(user)
    const entry = passwd.find((e) => e.uid === uid)
    return { uid, gid: entry?.gid ?? uid, name: entry?.name ?? user }
  }
  const entry = passwd.find((e) => e.name === user)
  return entry
    ? { uid: entry.uid, gid: entry.gid, name: entry.name }
    : `no user named ${JSON.stringify(user)} on this system`
}

export interface UserContext {
  readonly daemonUser: string | undefined
  readonly settingsUser: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  /** The supervisor's own uid (process.getuid()). */
  readonly currentUid: number
}

/**
 * The spec's user resolution: the daemon's `user`, else `settings.supervisor.user`,
 * else the sudo caller (SUDO_UID/SUDO_GID) when the supervisor runs as root through
 * sudo, else the supervisor's own user (no switch). Switching needs root.
 * Returns undefined when no switch is needed, or a message when it is not possible.
 */
export const resolveDaemonUser = (ctx: UserContext): Identity | undefined | { readonly error: string } => {
  const wanted = ctx.daemonUser ?? ctx.settingsUser
  let target: Identity | undefined
  if (wanted !== undefined) {
    const found = lookupUser(wanted)
    if (typeof found === "string") return { error: found }
    target = found
  } else if (ctx.currentUid === 0 && ctx.env.SUDO_UID && /^\d+$/.test(ctx.env.SUDO_UID)) {
    const uid = Number(ctx.env.SUDO_UID)
    const gid = ctx.env.SUDO_GID && /^\d+$/.test(ctx.env.SUDO_GID) ? Number(ctx.env.SUDO_GID) : uid
    target = { uid, gid, name: ctx.env.SUDO_USER ?? String(uid) }
  }
  if (target === undefined || target.uid === ctx.currentUid) return undefined
  if (ctx.currentUid !== 0) {
    return {
      error: `running as user ${target.name} needs a supervisor running as root (it runs as uid ${ctx.currentUid}); remove \`user\` or start the supervisor with sudo`,
    }
  }
  return target
}
