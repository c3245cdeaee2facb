// The daemon actions of the web page and the dashboard as commands of the protocol: each builds a
// command the API decodes, with the sender's reason; a start's answer is read as the daemon's own
// outcome. The dashboard's command (src/tui/connection.ts) is the same one, decoded.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodeCommand } from "../../src/api/commandHandlers.js"
import { Command } from "../../src/domain/Command.js"
import { actionCommand, actionFailure } from "../../src/domain/daemonAction.js"
import { actionFailures, verbCommand } from "../../src/tui/connection.js"

const VERBS = { start: "Start", stop: "Stop", restart: "Restart", enable: "Enable", disable: "Disable" }

describe("daemon actions as commands", () => {
  it("each action is the command of its name, on the one daemon, with the sender's reason", () => {
    for (const [verb, tag] of Object.entries(VERBS)) {
      const decoded = decodeCommand(actionCommand(verb, "app/web", "web"))
      expect(decoded._tag, verb).toBe("Right")
      if (decoded._tag !== "Right") continue
      expect(decoded.right._tag).toBe(tag)
      expect(decoded.right.reason).toBe("web")
      expect("selection" in decoded.right && decoded.right.selection.ids).toEqual(["app/web"])
    }
    // the restart of a button restarts (starts a stopped daemon too), as `supervisor restart` does
    const restart = decodeCommand(actionCommand("restart", "app/web", "web"))
    expect(restart._tag === "Right" && restart.right._tag === "Restart" && restart.right.if_running).toBe(
      false,
    )
    expect(() => actionCommand("explode", "app/web", "web")).toThrow("unknown daemon action explode")
  })

  it("the dashboard's keys send the same commands with reason tui", () => {
    for (const [verb, tag] of Object.entries(VERBS)) {
      const command = verbCommand(verb as keyof typeof VERBS, ["app/db"])
      expect(Schema.is(Command)(command)).toBe(true)
      expect([command._tag, command.reason]).toEqual([tag, "tui"])
    }
  })

  it("the dashboard's marked daemons make one command naming them all", () => {
    const command = verbCommand("stop", ["app/db", "app/web"])
    expect(command._tag === "Stop" && command.selection.ids).toEqual(["app/db", "app/web"])
    expect(actionCommand("restart", ["a/x", "b/y"], "web").selection.ids).toEqual(["a/x", "b/y"])
  })

  it("a start's answer fails when the daemon's own outcome is a failure, not a dependency's", () => {
    const ready = { _tag: "Ready", id: "app/web", pid: 42 }
    expect(actionFailure("app/web", [ready])).toBe("")
    expect(actionFailure("app/web", [{ _tag: "AlreadyRunning", id: "app/db" }, ready])).toBe("")
    expect(
      actionFailure("app/web", [{ _tag: "StartFailed", id: "app/web", message: "exited with code 3" }]),
    ).toBe("exited with code 3")
    expect(actionFailure("app/web", [{ _tag: "Disabled", id: "app/web" }])).toBe(
      "app/web is disabled; enable it first",
    )
    expect(actionFailure("app/web", [{ _tag: "Interrupted", id: "app/web" }])).toBe(
      "app/web was stopped while starting",
    )
    // a stop, enable or disable answers no outcomes: nothing failed
    expect(actionFailure("app/web", [{ id: "app/web", was_running: true, killed: false }])).toBe("")
    expect(actionFailure("app/web", { killed: true })).toBe("")
  })

  it("the answer for marked daemons names each one that failed, and no dependency's", () => {
    const answer = [
      { _tag: "AlreadyRunning", id: "app/db" },
      { _tag: "Ready", id: "app/web", pid: 42 },
      { _tag: "Disabled", id: "app/worker" },
      { _tag: "StartFailed", id: "app/cron", message: "exited with code 3" },
    ]
    expect(actionFailures(["app/web", "app/worker", "app/cron"], answer)).toBe(
      "app/worker is disabled; enable it first; app/cron: exited with code 3",
    )
    expect(actionFailures(["app/web", "app/db"], answer)).toBe("")
    // a stop of several answers no outcomes: nothing failed
    expect(actionFailures(["app/web", "app/db"], { stopped: ["app/web", "app/db"] })).toBe("")
    // one daemon is read as the web page reads it
    expect(actionFailures(["app/cron"], answer)).toBe(actionFailure("app/cron", answer))
  })
})
