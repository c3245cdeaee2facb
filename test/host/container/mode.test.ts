import { describe, expect, it } from "vitest"
import { ContainerFlagsInvalid, containerMode } from "../../../src/host/container/mode.js"

const off = { container: false, exitOnFailure: false }

describe("container mode", () => {
  it("is on with --container, with settings.supervisor.container, or as PID 1; said in that order", () => {
    expect(containerMode({ ...off, container: true }, true, 1)).toEqual({
      logFormat: "text",
      exitOnFailure: false,
      why: "--container",
    })
    expect(containerMode(off, true, 1)).toMatchObject({ why: "settings.supervisor.container" })
    expect(containerMode(off, false, 1)).toMatchObject({ why: "PID 1" })
    expect(containerMode(off, false, 4242)).toBeUndefined()
  })

  it("takes --log-format and --exit-on-failure in container mode", () => {
    expect(containerMode({ container: false, logFormat: "json", exitOnFailure: true }, false, 1)).toEqual({
      logFormat: "json",
      exitOnFailure: true,
      why: "PID 1",
    })
  })

  it("refuses --log-format and --exit-on-failure outside it, naming both and the fix", () => {
    const refused = containerMode({ container: false, logFormat: "text", exitOnFailure: true }, false, 4242)
    expect(refused).toBeInstanceOf(ContainerFlagsInvalid)
    expect((refused as ContainerFlagsInvalid).message).toBe(
      "--log-format and --exit-on-failure only apply in container mode: add --container (or set settings.supervisor.container = true)",
    )
    expect((containerMode({ ...off, exitOnFailure: true }, false, 7) as ContainerFlagsInvalid).flags).toEqual(
      ["--exit-on-failure"],
    )
  })
})
