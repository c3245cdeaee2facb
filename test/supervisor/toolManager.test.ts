import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { findExecutable, toolManagerKeys, toolManagerShell } from "../../src/supervisor/toolManager.js"
import { definition, makeHarness, startReady } from "./helpers.js"

let dir: string
let mise: string
beforeAll(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "tool-manager-"))
  mise = nodePath.join(dir, "mise")
  fs.writeFileSync(mise, "#!/bin/sh\nexit 0\n", { mode: 0o755 })
  fs.writeFileSync(nodePath.join(dir, "not-executable"), "", { mode: 0o644 })
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("findExecutable", () => {
  it("finds a name on PATH, skipping empty and missing entries", () => {
    expect(findExecutable("mise", `:/nonexistent:${dir}`, "/")).toBe(mise)
    expect(findExecutable("mise", "/usr/bin:/bin", "/")).toBeUndefined()
    expect(findExecutable("mise", undefined, "/")).toBeUndefined()
  })
  it("takes a path as is (relative to the daemon's dir); not executable or a directory is not found", () => {
    expect(findExecutable(mise, undefined, "/")).toBe(mise)
    expect(findExecutable("./mise", undefined, dir)).toBe(mise)
    expect(findExecutable(nodePath.join(dir, "not-executable"), undefined, "/")).toBeUndefined()
    expect(findExecutable(dir, undefined, "/")).toBeUndefined()
  })
  it("toolManagerShell wraps the shell, or says what is missing and how to fix it, naming the keys in full", () => {
    const general = toolManagerKeys("web", undefined)
    expect(toolManagerShell("mise", ["sh", "-c"], { PATH: dir }, "/", general)).toEqual({
      shell: [mise, "exec", "--", "sh", "-c"],
    })
    expect(toolManagerShell("mise", ["sh", "-c"], { PATH: "/usr/bin" }, "/", general)).toEqual({
      error:
        "settings.general.tool_manager is on but `mise` was not found on the daemon's PATH (/usr/bin); install it, set settings.general.tool_manager_bin to its full path, or set daemons.web.tool_manager = false",
    })
    expect(toolManagerShell("/no/mise", ["sh", "-c"], {}, "/", toolManagerKeys("api", true))).toEqual({
      error:
        "daemons.api.tool_manager is on but /no/mise is not an executable file; fix settings.general.tool_manager_bin, or set daemons.api.tool_manager = false",
    })
  })
})

describe("tool_manager in the lifecycle", () => {
  it.scoped("general.tool_manager wraps every daemon; a daemon's tool_manager = false opts out", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ settings: { general: { tool_manager: true, tool_manager_bin: mise } } })
      yield* startReady(h.sup, definition("web"))
      yield* startReady(h.sup, definition("plain", { tool_manager: false }))
      const [web, plain] = yield* Ref.get(h.fake.spawned)
      expect(web?.shell).toEqual([mise, "exec", "--", "sh", "-c"])
      expect(web?.command).toBe("./web --serve")
      expect(plain?.shell).toEqual(["sh", "-c"])
    }),
  )

  it.scoped("a daemon's tool_manager = true with the manager missing: the start fails, nothing spawned", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const outcome = yield* h.sup.start(definition("web", { tool_manager: true }))
      expect(outcome).toMatchObject({ _tag: "StartFailed", cli_status: 1 })
      expect(outcome._tag === "StartFailed" && outcome.message).toMatch(
        /^cannot start daemon app\/web: daemons\.web\.tool_manager is on but `mise` was not found on the daemon's PATH/,
      )
      expect(yield* Ref.get(h.fake.spawned)).toEqual([])
      expect((yield* h.sup.get("app/web")).status.type).toBe("failed")
    }),
  )
})
