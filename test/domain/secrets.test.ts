import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import { Settings } from "../../src/domain/Settings.js"
import { MASK, maskDaemonConfig, secretMatcher } from "../../src/domain/secrets.js"

const defaults = Schema.decodeSync(Settings)({}).general.secret_patterns

describe("secret patterns", () => {
  it("the default masks tokens, secrets, passwords and *_KEY names, whatever their case", () => {
    const isSecret = secretMatcher(defaults)
    for (const name of ["GITHUB_TOKEN", "TOKEN", "client_secret", "DB_PASSWORD", "API_KEY", "stripe_key"])
      expect(isSecret(name), name).toBe(true)
    for (const name of ["PATH", "KEYBOARD", "PORT", "MONKEY", "PASS"])
      expect(isSecret(name), name).toBe(false)
  })

  it("takes comma-separated globs with * and ?, matching whole names", () => {
    const isSecret = secretMatcher(" AWS_*, DB?_URL ,,")
    expect(["AWS_ACCESS", "aws_x", "DB1_URL"].map(isSecret)).toEqual([true, true, true])
    expect(["MY_AWS_X", "DB12_URL", "DB_URL"].map(isSecret)).toEqual([false, false, false])
    expect(secretMatcher("")("ANYTHING")).toBe(false)
    expect(secretMatcher("A.B")("AXB")).toBe(false) // regex characters are literal
  })

  it("masks a daemon's env and the top-level env, nothing else", () => {
    const config = new DaemonConfig({
      run: "x",
      dir: "/",
      env: { API_TOKEN: "t0k3n", MODE: "dev" },
      shared_env: { DB_PASSWORD: "pw", HOST: "h" },
    })
    const masked = maskDaemonConfig(config, secretMatcher(defaults))
    expect(masked.env).toEqual({ API_TOKEN: MASK, MODE: "dev" })
    expect(masked.shared_env).toEqual({ DB_PASSWORD: MASK, HOST: "h" })
    expect(masked.run).toBe("x")
    expect(config.env.API_TOKEN).toBe("t0k3n") // the original is untouched
  })
})
