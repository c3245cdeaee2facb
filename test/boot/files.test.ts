import { describe, expect, it } from "vitest"
import {
  type BootCommand,
  bootEnvironment,
  bootLocation,
  commandOf,
  launchdPlist,
  systemdUnit,
} from "../../src/boot/files.js"

const command: BootCommand = {
  node: "/opt/node 20/bin/node",
  cli: "/home/u/app/dist/supervisor.cjs",
  env: { PATH: "/usr/bin:/bin", SUPERVISOR_STATE_DIR: "/home/u/state 100%" },
  log: "/home/u/state/logs/supervisor.log",
}

describe("bootLocation", () => {
  it("a user unit under XDG_CONFIG_HOME, linked into default.target.wants", () => {
    expect(
      bootLocation({ platform: "linux", env: { XDG_CONFIG_HOME: "/x/cfg" }, home: "/home/u", isRoot: false }),
    ).toEqual({
      manager: "systemd",
      scope: "user",
      file: "/x/cfg/systemd/user/devsupervisor.service",
      link: "/x/cfg/systemd/user/default.target.wants/devsupervisor.service",
      old: {
        file: "/x/cfg/systemd/user/supervisor.service",
        link: "/x/cfg/systemd/user/default.target.wants/supervisor.service",
      },
    })
  })
  it("~/.config when XDG_CONFIG_HOME is not set", () => {
    expect(bootLocation({ platform: "linux", env: {}, home: "/home/u", isRoot: false })?.file).toBe(
      "/home/u/.config/systemd/user/devsupervisor.service",
    )
  })
  it("a system unit in /etc/systemd/system as root, not supervisord's supervisor.service", () => {
    expect(bootLocation({ platform: "linux", env: {}, home: "/root", isRoot: true })).toEqual({
      manager: "systemd",
      scope: "system",
      file: "/etc/systemd/system/devsupervisor.service",
      link: "/etc/systemd/system/multi-user.target.wants/devsupervisor.service",
      old: {
        file: "/etc/systemd/system/supervisor.service",
        link: "/etc/systemd/system/multi-user.target.wants/supervisor.service",
      },
    })
  })
  it("a launchd agent in ~/Library/LaunchAgents on macOS; nothing elsewhere", () => {
    expect(bootLocation({ platform: "darwin", env: {}, home: "/Users/u", isRoot: false })).toEqual({
      manager: "launchd",
      scope: "user",
      file: "/Users/u/Library/LaunchAgents/devsupervisor.plist",
    })
    expect(bootLocation({ platform: "win32", env: {}, home: "C:\\u", isRoot: false })).toBeUndefined()
  })
})

describe("bootEnvironment", () => {
  it("keeps PATH, XDG state and config homes and SUPERVISOR_* (not the build's code cache switch)", () => {
    expect(
      bootEnvironment({
        PATH: "/bin",
        HOME: "/h",
        TERM: "xterm",
        SUPERVISOR_STATE_DIR: "/s",
        SUPERVISOR_WRITE_CODE_CACHE: "1",
        XDG_CONFIG_HOME: "/c",
        SUPERVISOR_EMPTY: "",
      }),
    ).toEqual({ PATH: "/bin", SUPERVISOR_STATE_DIR: "/s", XDG_CONFIG_HOME: "/c" })
  })
})

describe("systemdUnit", () => {
  it("runs this node and this CLI's `supervisor run --boot` by absolute paths, quoted and escaped", () => {
    expect(systemdUnit(command, "user")).toBe(
      [
        "# Written by `supervisor boot enable`; removed by `supervisor boot disable`.",
        "[Unit]",
        "Description=supervisor: starts the daemons marked boot_start",
        "After=network.target",
        "",
        "[Service]",
        "Type=simple",
        'ExecStart="/opt/node 20/bin/node" /home/u/app/dist/supervisor.cjs supervisor run --boot',
        "Environment=PATH=/usr/bin:/bin",
        'Environment="SUPERVISOR_STATE_DIR=/home/u/state 100%%"',
        "KillMode=mixed",
        "Restart=on-failure",
        "StandardOutput=append:/home/u/state/logs/supervisor.log",
        "StandardError=inherit",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
      ].join("\n"),
    )
  })
  it("a system unit is wanted by multi-user.target", () => {
    expect(systemdUnit(command, "system")).toContain("WantedBy=multi-user.target\n")
  })
  it("reads back the node and CLI it runs", () => {
    expect(commandOf("systemd", systemdUnit(command, "user"))).toEqual({
      node: command.node,
      cli: command.cli,
    })
    expect(commandOf("systemd", "[Service]\nType=simple\n")).toBeUndefined()
  })
})

describe("launchdPlist", () => {
  it("a RunAtLoad agent running this node and CLI, its environment and its log", () => {
    const text = launchdPlist({ ...command, cli: "/a&b/<dist>/supervisor.cjs" })
    expect(text).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        '<plist version="1.0">',
        "<dict>",
        "  <key>Label</key>",
        "  <string>devsupervisor</string>",
        "  <key>ProgramArguments</key>",
        "  <array>",
        "    <string>/opt/node 20/bin/node</string>",
        "    <string>/a&amp;b/&lt;dist&gt;/supervisor.cjs</string>",
        "    <string>supervisor</string>",
        "    <string>run</string>",
        "    <string>--boot</string>",
        "  </array>",
        "  <key>EnvironmentVariables</key>",
        "  <dict>",
        "    <key>PATH</key>",
        "    <string>/usr/bin:/bin</string>",
        "    <key>SUPERVISOR_STATE_DIR</key>",
        "    <string>/home/u/state 100%</string>",
        "  </dict>",
        "  <key>RunAtLoad</key>",
        "  <true/>",
        "  <key>KeepAlive</key>",
        "  <dict>",
        "    <key>SuccessfulExit</key>",
        "    <false/>",
        "  </dict>",
        "  <key>StandardOutPath</key>",
        "  <string>/home/u/state/logs/supervisor.log</string>",
        "  <key>StandardErrorPath</key>",
        "  <string>/home/u/state/logs/supervisor.log</string>",
        "</dict>",
        "</plist>",
        "",
      ].join("\n"),
    )
    expect(commandOf("launchd", text)).toEqual({ node: command.node, cli: "/a&b/<dist>/supervisor.cjs" })
  })
})
