import { mkdtempSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { waitUntilUp } from "../../src/cli/client.js"

let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("waitUntilUp", () => {
  it("is true at once when the socket already accepts connections (a racing CLI started it)", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-sock-"))
    const socket = join(dir, "api.sock")
    const server = net.createServer((s) => s.destroy())
    await new Promise<void>((resolve) => server.listen(socket, resolve))
    try {
      expect(await Effect.runPromise(waitUntilUp(socket, "5 seconds"))).toBe(true)
    } finally {
      server.close()
    }
  })

  it("is true once the socket comes up later", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-sock-"))
    const socket = join(dir, "api.sock")
    const server = net.createServer((s) => s.destroy())
    const later = setTimeout(() => server.listen(socket), 200)
    try {
      expect(await Effect.runPromise(waitUntilUp(socket, "5 seconds"))).toBe(true)
    } finally {
      clearTimeout(later)
      server.close()
    }
  })

  it("is false when nothing comes up before the deadline", async () => {
    dir = mkdtempSync(join(tmpdir(), "sv-sock-"))
    expect(await Effect.runPromise(waitUntilUp(join(dir, "none.sock"), "300 millis"))).toBe(false)
  })
})
