import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { isRemote, remoteRefusal, remoteTarget, takeRemoteFlags } from "../../src/cli/remote.js"

describe("the global flags of a supervisor at a URL", () => {
  it("are taken out of argv anywhere before `--` and set their variables", () => {
    const env: NodeJS.ProcessEnv = {}
    const r = takeRemoteFlags(
      ["--url", "https://h:1", "logs", "web", "--ca=ca.pem", "-f", "--token-file", "t"],
      env,
    )
    expect(r).toEqual({ args: ["logs", "web", "-f"] })
    expect(env).toEqual({
      SUPERVISOR_URL: "https://h:1",
      SUPERVISOR_CA: "ca.pem",
      SUPERVISOR_API_TOKEN_FILE: "t",
    })
    expect(isRemote(env)).toBe(true)
    expect(isRemote({ SUPERVISOR_URL: " " })).toBe(false)
  })

  it("leave a command line of its own alone (after `--`, after run's and daemons' command name)", () => {
    const env: NodeJS.ProcessEnv = {}
    expect(takeRemoteFlags(["logs", "--", "--url", "x"], env).args).toEqual(["logs", "--", "--url", "x"])
    expect(takeRemoteFlags(["run", "api", "curl", "--url", "x"], env).args).toEqual([
      "run",
      "api",
      "curl",
      "--url",
      "x",
    ])
    expect(env).toEqual({})
  })

  it("need a value", () => {
    expect(takeRemoteFlags(["list", "--url"], {}).problem).toBe("--url needs a value")
    expect(takeRemoteFlags(["--ca", "--url", "x", "list"], {}).problem).toBe("--ca needs a value")
  })
})

describe("the remote target", () => {
  const target = (env: NodeJS.ProcessEnv) => Effect.runSync(Effect.either(remoteTarget(env)))

  it("is the URL without a trailing slash, with the token", () => {
    expect(target({ SUPERVISOR_URL: "https://h:3121/sv/", SUPERVISOR_API_TOKEN: "t" })).toEqual(
      Either.right({ url: "https://h:3121/sv", token: "t", ca: undefined, caFile: undefined }),
    )
  })

  it("names what is missing or wrong, and the fix", () => {
    const message = (env: NodeJS.ProcessEnv) =>
      Either.match(target(env), { onLeft: (e) => e.message, onRight: () => "" })
    expect(message({ SUPERVISOR_URL: "https://h:1" })).toMatch(/needs its token: set SUPERVISOR_API_TOKEN/)
    expect(message({ SUPERVISOR_URL: "h:1:2", SUPERVISOR_API_TOKEN: "t" })).toMatch(
      /only http:\/\/ and https:\/\//,
    )
    expect(message({ SUPERVISOR_URL: "nope", SUPERVISOR_API_TOKEN: "t" })).toMatch(/is not a URL/)
    expect(message({ SUPERVISOR_URL: "https://h:1", SUPERVISOR_API_TOKEN_FILE: "/nonexistent/t" })).toBe(
      "cannot read the token file (--token-file, SUPERVISOR_API_TOKEN_FILE) /nonexistent/t: ENOENT",
    )
    expect(
      message({ SUPERVISOR_URL: "https://h:1", SUPERVISOR_API_TOKEN: "t", SUPERVISOR_CA: "/nonexistent/ca" }),
    ).toBe("cannot read the CA file (--ca, SUPERVISOR_CA) /nonexistent/ca: ENOENT")
  })
})

describe("commands against a supervisor at a URL", () => {
  it("run when they only talk to the supervisor; the others are refused in one line", () => {
    for (const ok of [
      ["list"],
      ["logs", "web", "-f"],
      ["start", "web"],
      ["stop", "web"],
      ["tui"],
      ["attach", "repl"],
      ["supervisor", "status"],
      ["--version"],
    ])
      expect(remoteRefusal(ok), ok.join(" ")).toBeUndefined()
    for (const no of [
      ["config", "show"],
      ["daemons", "add", "x"],
      ["settings", "set"],
      ["activate", "zsh"],
      ["boot", "enable"],
      ["proxy", "trust"],
      ["supervisor", "token"],
      ["run", "x"],
    ])
      expect(remoteRefusal(no), no.join(" ")).toMatch(/needs the local files of the supervisor's machine/)
    expect(remoteRefusal(["logs", "web", "--clear"])).toMatch(/^`supervisor logs --clear` deletes log files/)
  })
})
