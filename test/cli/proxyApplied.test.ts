import { Duration } from "effect"
import { describe, expect, it } from "vitest"
import { applied } from "../../src/cli/actions/proxyNeeds.js"
import type { SupervisorInfo } from "../../src/domain/CliOutput.js"
import type { EffectiveProxy } from "../../src/domain/proxyUrl.js"

const proxy: EffectiveProxy = {
  enable: true,
  host: "127.0.0.1",
  port: 7080,
  https: false,
  tld: "test",
  auto_start: true,
  auto_start_timeout: Duration.seconds(30),
}

const info = (fields: Partial<SupervisorInfo>): SupervisorInfo => ({
  pid: 1,
  version: "0.0.0",
  started_at: 0,
  uptime_secs: 0,
  state_dir: "/state",
  socket: "/state/sock",
  web_url: null,
  api_url: null,
  daemons: 0,
  config_problems: [],
  storage_problems: [],
  ...fields,
})

describe("whether the running supervisor applied settings.proxy", () => {
  it("waits for the TLD as well as the scheme, host and port", () => {
    const serving = { proxy_url: "http://127.0.0.1:7080" }
    expect(applied(info({ ...serving, proxy_tld: "test" }), proxy)).toBe(true)
    // the old listener, same port: the new TLD is not served yet
    expect(applied(info({ ...serving, proxy_tld: "localhost" }), proxy)).toBe(false)
    expect(applied(info({ proxy_url: "http://127.0.0.1:70800", proxy_tld: "test" }), proxy)).toBe(false)
    expect(applied(info({ proxy_url: "https://127.0.0.1:7080", proxy_tld: "test" }), proxy)).toBe(false)
    expect(applied(info({ proxy_url: "http://0.0.0.0:7080", proxy_tld: "test" }), proxy)).toBe(false)
    expect(applied(info({}), proxy)).toBe(false)
  })

  it("takes any port for 0, brackets an IPv6 host, and a problem as an answer", () => {
    const any = { ...proxy, port: 0, host: "::1" }
    expect(applied(info({ proxy_url: "http://[::1]:41234", proxy_tld: "test" }), any)).toBe(true)
    expect(applied(info({ proxy_url: "http://[::1]:", proxy_tld: "test" }), any)).toBe(false)
    expect(applied(info({ proxy_problem: "not started: port 7080 is in use" }), proxy)).toBe(true)
  })

  it("when off, is applied once nothing listens", () => {
    const off = { ...proxy, enable: false }
    expect(applied(info({}), off)).toBe(true)
    expect(applied(info({ proxy_url: "http://127.0.0.1:7080", proxy_tld: "test" }), off)).toBe(false)
  })
})
