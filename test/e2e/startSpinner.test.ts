/**
 * `supervisor start` on a terminal (run under `script`, which gives it a pseudo-terminal): a
 * spinner line per daemon with what it waits for, ticked off as each daemon is settled (the
 * supervisor's start events), erased before the outcome lines. Drawn by the full CLI (the first
 * start, which starts the supervisor) and by the quick client alike: the second start runs from
 * a copy of dist/ without the CLI bundle, so only the quick client can answer it.
 */
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { copyInstall, type DaemonSandbox, makeDaemonSandbox, onTerminal, waitFor } from "./harness.js"

const T = 30_000

let sb: DaemonSandbox
let proj: string

beforeAll(() => {
  sb = makeDaemonSandbox()
  proj = sb.project(
    "spin",
    [
      '[daemons.quick]\nrun = "exec sleep 300"\nready_delay = 0\n',
      '[daemons.gated]\nrun = "exec sh gated.sh"\nready_output = "^up$"\n',
    ].join("\n"),
  )
  sb.write({ "spin/gated.sh": "while [ ! -f gated.go ]; do sleep 0.05; done\necho up\nexec sleep 300\n" })
  copy = copyInstall(sb.dir("install"))
})

let copy: string

afterAll(() => sb.destroy())

/** `supervisor start quick gated` under a pseudo-terminal; opens gated's gate once quick is ticked off. */
const spinnerStart = async () => {
  const term = onTerminal([process.execPath, join(copy, "supervisor.cjs"), "start", "quick", "gated"], {
    cwd: proj,
    env: sb.env,
  })
  try {
    await waitFor("the spinner of gated", () =>
      /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] spin\/gated waiting for output matching \/\^up\$\//.test(term.output()),
    )
    await waitFor("quick ticked off", () => term.output().includes("✓ spin/quick ready"))
    expect(term.output()).not.toContain("spin/gated is running")
    writeFileSync(join(proj, "gated.go"), "")
    expect(await term.exited, term.output()).toBe(0)
  } finally {
    term.kill()
  }
  const out = term.output()
  expect(out).toMatch(/✓ spin\/quick is running \(pid \d+\)/)
  expect(out).toMatch(/✓ spin\/gated is running \(pid \d+\)/)
  // the spinner lines are erased (cursor up, clear to the end) before the outcome lines
  expect(out.lastIndexOf("\x1b[0J")).toBeLessThan(out.indexOf("✓ spin/quick is running"))
}

describe("start on a terminal", () => {
  it(
    "draws a spinner per daemon, ticks each off when it is ready, then prints the outcomes: CLI and quick client",
    async () => {
      await spinnerStart() // no supervisor yet: the full CLI starts one
      expect(sb.cli(["stop", "quick", "gated"], proj).status).toBe(0)
      rmSync(join(proj, "gated.go"))
      rmSync(join(copy, "cli.cjs")) // only the quick client can answer now
      await spinnerStart()
    },
    T,
  )
})
