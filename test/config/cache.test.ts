import { rmSync, statSync } from "node:fs"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { makeConfigCache } from "../../src/config/cache.js"
import type { LoadOptions } from "../../src/config/Loader.js"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"
import { useSandbox } from "./helpers.js"

const sandbox = useSandbox()

const loader = (settleMillis = 0) => {
  const load = makeConfigCache({ capacity: 2, settleMillis })
  return (options: LoadOptions) => Effect.runPromise(load(options).pipe(Effect.provide(NodeFileSystem.layer)))
}

const daemons = (c: ResolvedConfig) => Object.values(c.daemons).map((d) => d.id.name)

describe("config cache (the supervisor's repeated loads)", () => {
  it("reuses the result while no candidate file changes, and reloads when one does", async () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": '[daemons.a]\nrun = "sleep 1"\n' })
    const load = loader()
    const opts = { cwd: sb.path("p"), env: sb.env }
    const first = await load(opts)
    expect(daemons(first)).toEqual(["a"])
    expect(await load(opts)).toBe(first) // the same object: nothing was read again

    // an edit of the same file (another size)
    sb.write({ "p/supervisor.toml": '[daemons.a]\nrun = "sleep 1"\n[daemons.b]\nrun = "sleep 2"\n' })
    const edited = await load(opts)
    expect(edited).not.toBe(first)
    expect(daemons(edited)).toEqual(["a", "b"])

    // a new file where there was none (a local override), then its removal
    sb.write({ "p/supervisor.local.toml": '[daemons.c]\nrun = "sleep 3"\n' })
    const withLocal = await load(opts)
    expect(daemons(withLocal)).toEqual(["a", "b", "c"])
    rmSync(sb.path("p/supervisor.local.toml"))
    expect(daemons(await load(opts))).toEqual(["a", "b"])
  })

  it("keeps no result while a file is younger than settleMillis (coarse timestamps could hide an edit)", async () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": '[daemons.a]\nrun = "sleep 1"\n' })
    const load = loader(300)
    const opts = { cwd: sb.path("p"), env: sb.env }
    const first = await load(opts)
    expect(await load(opts)).not.toBe(first) // loaded again: the file was written just now
    // once it is older than that, the result is kept
    const changed = statSync(sb.path("p/supervisor.toml")).ctimeMs
    const deadline = Date.now() + 5000
    while (Date.now() <= changed + 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    const settled = await load(opts)
    expect(await load(opts)).toBe(settled)
  })

  it("keys on directory and environment, and keeps at most `capacity` entries", async () => {
    const sb = sandbox()
    sb.write({
      "p/supervisor.toml": '[daemons.a]\nrun = "sleep 1"\n',
      "q/supervisor.toml": '[daemons.b]\nrun = "sleep 1"\n',
    })
    const load = loader()
    const p = { cwd: sb.path("p"), env: sb.env }
    const pFirst = await load(p)
    const other = await load({ cwd: sb.path("p"), env: { ...sb.env, SUPERVISOR_LOG_LEVEL: "debug" } })
    expect(other).not.toBe(pFirst)
    expect(await load(p)).toBe(pFirst)
    // a third key evicts the least recently used one (the variant env), not p
    expect(daemons(await load({ cwd: sb.path("q"), env: sb.env }))).toEqual(["b"])
    expect(await load(p)).toBe(pFirst)
    expect(await load({ cwd: sb.path("p"), env: { ...sb.env, SUPERVISOR_LOG_LEVEL: "debug" } })).not.toBe(
      other,
    )
  })

  it("after a failed load, the fixed file is read", async () => {
    const sb = sandbox()
    sb.write({ "p/supervisor.toml": "[daemons.a]\n" })
    const load = loader()
    const opts = { cwd: sb.path("p"), env: sb.env }
    await expect(load(opts)).rejects.toThrow(/run/)
    sb.write({ "p/supervisor.toml": '[daemons.a]\nrun = "sleep 1"\n' })
    expect(daemons(await load(opts))).toEqual(["a"])
  })
})
