/**
 * A supervisor that refuses to start (a non-loopback address without allow_non_loopback) is
 * reported at once with its own message; listeners beyond loopback are named for the warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { awaitStart } from "../../src/cli/client.js"
import { nonLoopbackUrls } from "../../src/cli/keptListeners.js"
import { lockName } from "../../src/host/lock.js"

let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("awaitStart", () => {
  it("a supervisor that exits first: its log lines since the start, long before the timeout", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-start-"))
    const log = join(dir, "supervisor.log")
    const before = "an earlier run's line\n"
    writeFileSync(log, `${before}error: settings.web.bind_address = "0.0.0.0" is not a loopback address\n`)
    // a start that waited for its timeout (an hour) instead of seeing the exit fails the test's own
    const outcome = await Effect.runPromise(
      awaitStart(
        join(dir, "api.sock"),
        { exited: Promise.resolve(), log, logOffset: Buffer.byteLength(before), stateDir: dir },
        "1 hour",
      ),
    )
    expect(outcome).toEqual({
      _tag: "Exited",
      output: 'error: settings.web.bind_address = "0.0.0.0" is not a loopback address',
    })
  })

  it("up when the socket answers (also when the process exited because another one won)", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-start-"))
    const socket = join(dir, "api.sock")
    const server = net.createServer((s) => s.destroy())
    await new Promise<void>((resolve) => server.listen(socket, resolve))
    try {
      const started = { exited: Promise.resolve(), log: join(dir, "none.log"), logOffset: 0, stateDir: dir }
      expect(await Effect.runPromise(awaitStart(socket, started, "5 seconds"))).toEqual({ _tag: "Up" })
    } finally {
      server.close()
    }
  })

  it("a supervisor that lost the lock to another one starting: waits for that one", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-start-"))
    const socket = join(dir, "api.sock")
    // the winner: holds the lock now, answers on the socket a little later
    const lock = net.createServer((s) => s.destroy())
    await new Promise<void>((resolve) => lock.listen({ path: lockName(dir!) }, resolve))
    const server = net.createServer((s) => s.destroy())
    const later = setTimeout(() => server.listen(socket), 300)
    try {
      const started = { exited: Promise.resolve(), log: join(dir, "none.log"), logOffset: 0, stateDir: dir }
      expect(await Effect.runPromise(awaitStart(socket, started, "10 seconds"))).toEqual({ _tag: "Up" })
    } finally {
      clearTimeout(later)
      server.close()
      lock.close()
    }
  })

  it("timed out when neither happens", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-start-"))
    const started = {
      exited: new Promise<void>(() => {}),
      log: join(dir, "none.log"),
      logOffset: 0,
      stateDir: dir,
    }
    expect(await Effect.runPromise(awaitStart(join(dir, "api.sock"), started, "200 millis"))).toEqual({
      _tag: "TimedOut",
    })
  })
})

describe("nonLoopbackUrls", () => {
  it("names the listeners beyond loopback only", () => {
    expect(nonLoopbackUrls({ web_url: "http://127.0.0.1:3120", api_url: "http://[::1]:3121" })).toEqual([])
    expect(nonLoopbackUrls({ web_url: "http://localhost:3120/sv", api_url: null })).toEqual([])
    expect(nonLoopbackUrls({ web_url: "http://0.0.0.0:3120", api_url: "http://[::]:3121" })).toEqual([
      "http://0.0.0.0:3120",
      "http://[::]:3121",
    ])
    expect(nonLoopbackUrls({ web_url: "http://192.168.1.5:3120", api_url: "http://127.0.0.1:3121" })).toEqual(
      ["http://192.168.1.5:3120"],
    )
  })
})
