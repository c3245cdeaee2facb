/**
 * What a supervisor nobody asks for HTTPS or an attach does not load, through the built CLI: a
 * foreground supervisor with a preloaded probe that writes Node's list of loaded built-in modules,
 * after a start of daemons (one with an http readiness check), listings and a stop. `tls`, `https`
 * and `zlib` (the `ws` library's) stay out: they come with the first HTTPS listener, https check or
 * attach (src/host/tcp.ts, src/supervisor/readiness/http.ts, src/api/attach/upgrade.ts). So do
 * `crypto` and `readline`, which only some paths use (scripts/lazy-modules.mjs): the supervisor
 * runs with the background one's flags, so its collections at rest run too (the one that drops
 * code, after a minute of quiet, loads `v8`, whose flags it sets: src/host/restCollection.ts).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { supervisorNodeFlags } from "../../src/host/nodeFlags.js"
import { BIN, type DaemonSandbox, makeDaemonSandbox, waitFor } from "./harness.js"

const T = 60_000

let sb: DaemonSandbox | undefined
afterEach(() => {
  sb?.destroy()
  sb = undefined
})

/** Writes the loaded built-in modules to $MODULES_OUT, every 100 ms. */
const PROBE = `
const fs = require("node:fs")
setInterval(() => {
  const names = process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13))
  fs.writeFileSync(process.env.MODULES_OUT + ".tmp", names.join("\\n"))
  fs.renameSync(process.env.MODULES_OUT + ".tmp", process.env.MODULES_OUT)
}, 100).unref()
`

describe("built-in modules loaded when first needed", () => {
  it(
    "a supervisor with plain daemons and an http check holds no tls, https, zlib, crypto or readline",
    async () => {
      sb = makeDaemonSandbox()
      // the check's target in a process of its own: the CLI runs synchronously in this one
      const server = spawn(
        process.execPath,
        [
          "-e",
          'const s = require("node:http").createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1", () => console.log(s.address().port))',
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      )
      let serverOut = ""
      server.stdout.setEncoding("utf8").on("data", (d: string) => {
        serverOut += d
      })
      await waitFor("the check's server", () => /^\d+\n/.test(serverOut))
      const port = Number(serverOut.trim())
      const cwd = sb.project(
        "app",
        `[daemons.one]\nrun = "exec sleep 300"\nready_delay = 0\n\n` +
          `[daemons.web]\nrun = "exec sleep 300"\nready_http = "http://127.0.0.1:${port}/"\n`,
      )
      const probe = path.join(sb.root, "probe.cjs")
      fs.writeFileSync(probe, PROBE)
      const out = path.join(sb.root, "modules.txt")
      const host = spawn(process.execPath, [...supervisorNodeFlags, "-r", probe, BIN, "supervisor", "run"], {
        cwd: sb.root,
        env: { ...sb.env, MODULES_OUT: out, SUPERVISOR_REST_COLLECTION: "0" },
        stdio: ["ignore", "ignore", "pipe"],
      })
      let err = ""
      host.stderr.setEncoding("utf8").on("data", (d: string) => {
        err += d
      })
      try {
        await waitFor("the supervisor to listen", () => err.includes("listening on"), { timeout: 20_000 })
        expect(sb.cli(["start", "--all", "--quiet"], cwd).status).toBe(0)
        for (let i = 0; i < 2; i++) expect(sb.cli(["list", "--json"], cwd).status).toBe(0)
        expect(sb.cli(["stop", "--all"], cwd).status).toBe(0)
        const written = Date.now()
        await waitFor(
          "the probe's list after the stop",
          () => fs.existsSync(out) && fs.statSync(out).mtimeMs > written,
        )
        const loaded = fs.readFileSync(out, "utf8").split("\n")
        expect(loaded).toContain("child_process") // the probe's list is the supervisor's
        const lazy = ["tls", "https", "zlib", "crypto", "readline"]
        expect(loaded.filter((m) => lazy.includes(m))).toEqual([])
        expect(sb.cli(["supervisor", "stop"], cwd).status).toBe(0)
      } finally {
        server.kill("SIGKILL")
        if (host.exitCode === null) host.kill("SIGKILL")
      }
    },
    T,
  )
})
