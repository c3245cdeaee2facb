import { Effect, Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { keptListenerEnv } from "../../src/cli/keptListeners.js"
import { Settings } from "../../src/domain/Settings.js"
import { listenerPlans } from "../../src/host/listeners.js"

const settings = (raw: Record<string, unknown> = {}) => Schema.decodeUnknownSync(Settings)(raw)
const plans = (raw: Record<string, unknown>, env: Record<string, string>) =>
  Effect.runSync(Effect.either(listenerPlans(settings(raw), env)))

describe("the listeners `supervisor supervisor start --force` keeps", () => {
  it("the bound web port and path and the API port, as the variables that open them again", () => {
    expect(
      keptListenerEnv({ web_url: "http://127.0.0.1:4312/sv", api_url: "http://127.0.0.1:4313" }),
    ).toEqual({ SUPERVISOR_WEB_PORT: "4312", SUPERVISOR_WEB_PATH: "/sv", SUPERVISOR_API_PORT: "4313" })
    expect(keptListenerEnv({ web_url: "http://[::1]:3120", api_url: null })).toEqual({
      SUPERVISOR_WEB_PORT: "3120",
      SUPERVISOR_WEB_PATH: "/",
    })
    expect(keptListenerEnv({ web_url: null, api_url: null })).toEqual({})
  })

  it("SUPERVISOR_API_PORT opens the API listener without settings.api.auto_start; a bad one is named", () => {
    const kept = plans(
      {},
      { SUPERVISOR_API_PORT: "4313", SUPERVISOR_WEB_PORT: "4312", SUPERVISOR_WEB_PATH: "/" },
    )
    expect(Either.getOrThrow(kept).map((p) => [p.kind, p.port, p.basePath])).toEqual([
      ["web", 4312, ""],
      ["api", 4313, ""],
    ])
    expect(Either.getOrThrow(plans({}, {}))).toEqual([])
    const bad = plans({}, { SUPERVISOR_API_PORT: "http" })
    expect(Either.isLeft(bad) && bad.left.message).toBe(
      'SUPERVISOR_API_PORT="http": expected a port number between 0 and 65535 (0 picks a free one)',
    )
  })

  it("messages name settings by their full keys", () => {
    const r = plans({ web: { bind_address: "0.0.0.0", auto_start: true } }, {})
    expect(Either.isLeft(r) && r.left.message).toMatch(
      /^settings\.web\.bind_address = "0\.0\.0\.0" is not a loopback address; .* set settings\.web\.allow_non_loopback = true to bind it anyway$/,
    )
    const path = plans({}, { SUPERVISOR_WEB_PATH: "/a b" })
    expect(Either.isLeft(path) && path.left.message).toContain("--web-path or settings.web.base_path")
  })
})
