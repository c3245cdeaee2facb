import { Duration, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Settings } from "../../src/domain/Settings.js"
import { proxyOptions } from "../../src/proxy/options.js"

describe("proxyOptions", () => {
  it("has the documented defaults: off, 127.0.0.1, https on 7443, localhost, auto start within 30s", () => {
    expect(proxyOptions(Schema.decodeSync(Settings)({}))).toEqual({
      enable: false,
      host: "127.0.0.1",
      port: 7443,
      https: true,
      tld: "localhost",
      autoStart: true,
      autoStartTimeout: 30_000,
    })
  })

  it("defaults the port to 7080 without https, and reads every key", () => {
    const settings = Schema.decodeSync(Settings)({
      proxy: { enable: true, https: false, tld: "Test", auto_start: false, auto_start_timeout: "2s" },
    })
    expect(proxyOptions(settings)).toMatchObject({
      enable: true,
      port: 7080,
      https: false,
      tld: "test",
      autoStart: false,
      autoStartTimeout: Duration.toMillis("2 seconds"),
    })
    expect(proxyOptions(Schema.decodeSync(Settings)({ proxy: { port: 0 } })).port).toBe(0)
  })
})
