import { describe, expect, it } from "vitest"
import { lookupUser, resolveDaemonUser } from "../../src/supervisor/user.js"

const passwd = [
  { name: "root", uid: 0, gid: 0 },
  { name: "alice", uid: 1000, gid: 1000 },
  { name: "www", uid: 33, gid: 33 },
]

describe("lookupUser", () => {
  it("finds a name", () =>
    expect(lookupUser("alice", passwd)).toEqual({ uid: 1000, gid: 1000, name: "alice" }))
  it("accepts a numeric UID with or without an entry", () => {
    expect(lookupUser("33", passwd)).toEqual({ uid: 33, gid: 33, name: "www" })
    expect(lookupUser("4242", passwd)).toEqual({ uid: 4242, gid: 4242, name: "4242" })
  })
  it("reports an unknown name", () =>
    expect(lookupUser("bob", passwd)).toBe('no user named "bob" on this system'))
  it("reads the real /etc/passwd by default", () => expect(lookupUser("root")).toMatchObject({ uid: 0 }))
})

describe("resolveDaemonUser (the spec's user resolution rules)", () => {
  const base = { daemonUser: undefined, settingsUser: undefined, env: {}, currentUid: 0 }
  it("1. the daemon's user wins", () =>
    expect(
      resolveDaemonUser({ ...base, daemonUser: "root", settingsUser: "nobody", currentUid: 0 }),
    ).toBeUndefined())
  it("1. the daemon's user, by name, as root", () =>
    expect(resolveDaemonUser({ ...base, daemonUser: "nobody" })).toMatchObject({ name: "nobody" }))
  it("2. else settings.supervisor.user", () =>
    expect(resolveDaemonUser({ ...base, settingsUser: "nobody" })).toMatchObject({ name: "nobody" }))
  it("3. else the sudo caller when root through sudo", () =>
    expect(
      resolveDaemonUser({ ...base, env: { SUDO_UID: "1000", SUDO_GID: "1001", SUDO_USER: "alice" } }),
    ).toEqual({ uid: 1000, gid: 1001, name: "alice" }))
  it("3. SUDO_UID is ignored when the supervisor is not root", () =>
    expect(resolveDaemonUser({ ...base, currentUid: 1000, env: { SUDO_UID: "1000" } })).toBeUndefined())
  it("4. else the supervisor's own user: no switch", () => expect(resolveDaemonUser(base)).toBeUndefined())
  it("5. switching needs root: a clear error", () => {
    const r = resolveDaemonUser({ ...base, currentUid: 1000, daemonUser: "root" })
    expect(r).toEqual({
      error: expect.stringMatching(/needs a supervisor running as root \(it runs as uid 1000\)/),
    })
  })
  it("an unknown user is an error", () =>
    expect(resolveDaemonUser({ ...base, daemonUser: "no-such-user-xyz" })).toEqual({
      error: 'no user named "no-such-user-xyz" on this system',
    }))
})
