import { Duration, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DaemonConfig, retryLimit } from "../../src/domain/DaemonConfig.js"
import { decoder, messages, paths } from "./helpers.js"

describe("DaemonConfig defaults", () => {
  const config = new DaemonConfig({ run: "npm start", dir: "/srv/app" })

  it("keeps run and dir", () => {
    expect(config.run).toBe("npm start")
    expect(config.dir).toBe("/srv/app")
  })

  it("fills the defaults of the spec", () => {
    expect(config.env).toEqual({})
    expect(config.retry).toBe(0)
    expect(config.auto).toEqual([])
    expect(config.depends).toEqual([])
    expect(config.watch).toEqual([])
    expect(config.watch_mode).toBe("native")
    expect(config.boot_start).toBe(false)
    expect(config.hooks).toEqual({})
    expect(config.stop_signal).toEqual({ signal: "SIGTERM" })
  })

  it("leaves the keys without a default unset", () => {
    for (const key of [
      "user",
      "ready_delay",
      "ready_output",
      "ready_http",
      "ready_port",
      "ready_cmd",
      "port",
      "cron",
      "tool_manager",
      "memory_limit",
      "cpu_limit",
    ] as const) {
      expect(config[key], key).toBeUndefined()
    }
  })

  it("has no deprecated port keys: they are folded into port", () => {
    expect(Object.keys(config)).not.toContain("expected_port")
    expect(Object.keys(config)).not.toContain("auto_bump_port")
    expect(Object.keys(config)).not.toContain("port_bump_attempts")
  })

  it("keeps values given to the constructor", () => {
    const c = new DaemonConfig({
      run: "x",
      dir: "/d",
      retry: true,
      port: { expect: [3000], bump: true },
      stop_signal: { signal: "SIGINT", timeout: Duration.seconds(3) },
      depends: ["shop/db"],
    })
    expect(c.retry).toBe(true)
    expect(c.port).toEqual({ expect: [3000], bump: true })
    expect(c.stop_signal.signal).toBe("SIGINT")
    expect(c.depends).toEqual(["shop/db"])
  })

  it("validates the constructor's arguments", () => {
    expect(() => new DaemonConfig({ run: "", dir: "/d" })).toThrow(/must not be empty/)
    expect(() => new DaemonConfig({ run: "x", dir: "/d", retry: -1 })).toThrow()
    expect(() => new DaemonConfig({ run: "x", dir: "/d", cpu_limit: 0 })).toThrow()
  })
})

describe("DaemonConfig schema", () => {
  const { ok, fail } = decoder(DaemonConfig)

  it("decodes the TOML forms, normalising them", () => {
    const c = ok({
      run: "x",
      dir: "/d",
      port: 3000,
      stop_signal: "INT",
      cron: "0 0 * * * *",
      memory_limit: "1GiB",
    })
    expect(c).toBeInstanceOf(DaemonConfig)
    expect(c.port).toEqual({ expect: [3000], bump: false })
    expect(c.stop_signal).toEqual({ signal: "SIGINT" })
    expect(c.cron).toEqual({ schedule: "0 0 * * * *", retrigger: "finish", immediate: false })
    expect(c.memory_limit).toBe(1024 ** 3)
    expect(c.retry).toBe(0)
  })

  it("requires run and dir", () => {
    expect(paths(fail({ dir: "/d" }))).toContain("run")
    expect(paths(fail({ run: "x" }))).toContain("dir")
  })

  it("rejects the deprecated port keys and unknown keys", () => {
    expect(paths(fail({ run: "x", dir: "/d", expected_port: [3000] }))).toContain("expected_port")
    expect(messages(fail({ run: "x", dir: "/d", retries: 1 }))).toContain("is unexpected")
  })

  it("encodes back to the TOML forms with defaults spelled out", () => {
    const encoded = Schema.encodeSync(DaemonConfig)(new DaemonConfig({ run: "x", dir: "/d" }))
    expect(encoded).toEqual({
      run: "x",
      dir: "/d",
      env: {},
      env_file: [],
      shared_env: {},
      shared_env_file: [],
      retry: 0,
      auto: [],
      restart: "on-failure",
      success_exit_codes: [0],
      restart_dependents: false,
      depends: [],
      depends_conditions: {},
      watch: [],
      watch_mode: "native",
      boot_start: false,
      hooks: {},
      stop_signal: { signal: "SIGTERM" },
      pty: false,
      stdin: "null",
    })
    expect(ok(encoded)).toEqual(new DaemonConfig({ run: "x", dir: "/d" }))
  })
})

describe("retryLimit", () => {
  it("is Infinity for true", () => {
    expect(retryLimit(true)).toBe(Number.POSITIVE_INFINITY)
  })

  it("is 0 for false and 0", () => {
    expect(retryLimit(false)).toBe(0)
    expect(retryLimit(0)).toBe(0)
  })

  it("is the count for a number", () => {
    expect(retryLimit(1)).toBe(1)
    expect(retryLimit(5)).toBe(5)
  })

  it("gives 0 for the default retry of a DaemonConfig", () => {
    expect(retryLimit(new DaemonConfig({ run: "x", dir: "/d" }).retry)).toBe(0)
  })
})
