import * as nodePath from "node:path"

// What `supervisor boot enable` writes: a systemd unit (Linux) or a launchd agent (macOS) that
// runs this CLI's `supervisor supervisor run --boot` by absolute paths. Pure text and paths here;
// the files are written and read by src/boot/boot.ts.

type Env = Readonly<Record<string, string | undefined>>

/** The command the boot file runs: this Node and this CLI, by absolute paths, and its environment. */
export interface BootCommand {
  readonly node: string
  readonly cli: string
  readonly env: Readonly<Record<string, string>>
  /** The supervisor's log: its output goes there, as a background supervisor's does. */
  readonly log: string
}

/** The arguments after the CLI's path. */
export const BOOT_ARGS = ["supervisor", "run", "--boot"] as const

/** The first line of our systemd units: a unit without it is another program's, left alone. */
export const UNIT_MARK = "# Written by `supervisor boot enable`"

/** Whether a boot file is ours: our mark (systemd), our label (launchd). */
export const isOurs = (manager: "systemd" | "launchd", text: string): boolean =>
  manager === "systemd"
    ? text.startsWith(UNIT_MARK)
    : text.includes(`<key>Label</key>\n  <string>${LAUNCHD_LABEL}</string>`)

/** The launchd label, and the plist's name. */
export const LAUNCHD_LABEL = "devsupervisor"
/** The systemd unit's name: not `supervisor.service`, which Debian's supervisord package owns. */
export const UNIT_NAME = "devsupervisor.service"
/** The name our units had before: one of ours (by its mark) is still found, moved and removed. */
export const OLD_UNIT_NAME = "supervisor.service"

export type BootLocation =
  | {
      readonly manager: "systemd"
      readonly scope: "user" | "system"
      readonly file: string
      /** The `*.target.wants` link that `systemctl enable` would make. */
      readonly link: string
      /** The same two paths under the old name (OLD_UNIT_NAME). */
      readonly old: { readonly file: string; readonly link: string }
    }
  | { readonly manager: "launchd"; readonly scope: "user"; readonly file: string }

export interface LocationOptions {
  readonly platform: NodeJS.Platform
  readonly env: Env
  readonly home: string
  readonly isRoot: boolean
  /** Where root's units go (`/etc/systemd/system`); a temp dir in tests. */
  readonly systemDir?: string
}

/** Where the boot file goes on this platform; undefined where boot is not supported. */
export const bootLocation = (o: LocationOptions): BootLocation | undefined => {
  if (o.platform === "darwin")
    return {
      manager: "launchd",
      scope: "user",
      file: nodePath.join(o.home, "Library", "LaunchAgents", `${LAUNCHD_LABEL}.plist`),
    }
  if (o.platform !== "linux") return undefined
  const scope = o.isRoot ? "system" : "user"
  const dir = o.isRoot
    ? (o.systemDir ?? "/etc/systemd/system")
    : nodePath.join(o.env.XDG_CONFIG_HOME || nodePath.join(o.home, ".config"), "systemd", "user")
  const wants = nodePath.join(dir, o.isRoot ? "multi-user.target.wants" : "default.target.wants")
  return {
    manager: "systemd",
    scope,
    file: nodePath.join(dir, UNIT_NAME),
    link: nodePath.join(wants, UNIT_NAME),
    old: { file: nodePath.join(dir, OLD_UNIT_NAME), link: nodePath.join(wants, OLD_UNIT_NAME) },
  }
}

/**
 * What the supervisor started at boot needs of this environment: where its state and
 * configuration are (SUPERVISOR_*, XDG_*), and PATH for its daemons (a boot session's is minimal).
 */
export const bootEnvironment = (env: Env): Record<string, string> => {
  const keep = (name: string) =>
    name === "PATH" ||
    name === "XDG_CONFIG_HOME" ||
    name === "XDG_STATE_HOME" ||
    (name.startsWith("SUPERVISOR_") &&
      name !== "SUPERVISOR_WRITE_CODE_CACHE" &&
      name !== "SUPERVISOR_BOOT_SCOPE")
  return Object.fromEntries(
    Object.entries(env)
      .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== "" && keep(e[0]))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  )
}

// systemd expands `%` specifiers and `$` variables in ExecStart and Environment: doubled, they
// stand for themselves. Quoted words keep spaces; `\` and `"` are escaped inside them.
const systemdEscape = (s: string) => s.replaceAll("%", "%%").replaceAll("$", "$$$$")
const systemdWord = (s: string) =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(s)
    ? systemdEscape(s)
    : `"${systemdEscape(s).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`

/** The systemd unit: the supervisor in the foreground, restarted if it fails. */
export const systemdUnit = (command: BootCommand, scope: "user" | "system"): string => {
  const lines = [
    `${UNIT_MARK}; removed by \`supervisor boot disable\`.`,
    "[Unit]",
    "Description=supervisor: starts the daemons marked boot_start",
    "After=network.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${[command.node, command.cli, ...BOOT_ARGS].map(systemdWord).join(" ")}`,
    ...Object.entries(command.env).map(([k, v]) => `Environment=${systemdWord(`${k}=${v}`)}`),
    // the supervisor stops its daemons itself on SIGTERM; what is left after the timeout is killed
    "KillMode=mixed",
    "Restart=on-failure",
    // `append:` takes the path as it is: not with spaces (the journal has the output then)
    ...(/\s/.test(command.log) ? [] : [`StandardOutput=append:${command.log}`, `StandardError=inherit`]),
    "",
    "[Install]",
    `WantedBy=${scope === "user" ? "default.target" : "multi-user.target"}`,
    "",
  ]
  return lines.join("\n")
}

const xml = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;")

/** The launchd agent: loaded at login (RunAtLoad), restarted if it fails. */
export const launchdPlist = (command: BootCommand): string => {
  const string = (s: string) => `<string>${xml(s)}</string>`
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  ${string(LAUNCHD_LABEL)}`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...[command.node, command.cli, ...BOOT_ARGS].map((a) => `    ${string(a)}`),
    "  </array>",
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    ...Object.entries(command.env).flatMap(([k, v]) => [`    <key>${xml(k)}</key>`, `    ${string(v)}`]),
    "  </dict>",
    "  <key>RunAtLoad</key>",
    "  <true/>",
    "  <key>KeepAlive</key>",
    "  <dict>",
    "    <key>SuccessfulExit</key>",
    "    <false/>",
    "  </dict>",
    "  <key>StandardOutPath</key>",
    `  ${string(command.log)}`,
    "  <key>StandardErrorPath</key>",
    `  ${string(command.log)}`,
    "</dict>",
    "</plist>",
    "",
  ].join("\n")
}

/** The text of the boot file for this location. */
export const bootFileText = (location: BootLocation, command: BootCommand): string =>
  location.manager === "launchd" ? launchdPlist(command) : systemdUnit(command, location.scope)

// Reading back what a boot file runs: the first two words of ExecStart (or ProgramArguments).
const systemdWords = (line: string): Array<string> => {
  const words: Array<string> = []
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g
  for (const m of line.matchAll(re))
    words.push(
      (m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? ""))
        .replaceAll("%%", "%")
        .replaceAll("$$", "$"),
    )
  return words
}
const unxml = (s: string) =>
  s
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&")

/** The Node and CLI paths a boot file runs; undefined when it has none (not one of ours). */
export const commandOf = (
  manager: BootLocation["manager"],
  text: string,
): { readonly node: string; readonly cli: string } | undefined => {
  let words: ReadonlyArray<string> = []
  if (manager === "systemd") {
    const line = text.split("\n").find((l) => l.startsWith("ExecStart="))
    if (line !== undefined) words = systemdWords(line.slice("ExecStart=".length))
  } else {
    const args = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(text)
    if (args?.[1] !== undefined)
      words = [...args[1].matchAll(/<string>([^<]*)<\/string>/g)].map((m) => unxml(m[1] ?? ""))
  }
  const [node, cli] = words
  return node === undefined || cli === undefined ? undefined : { node, cli }
}
