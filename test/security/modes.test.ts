/** Modes an earlier version left (logs 0640 in 0750 directories) are made private at start. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { tightenStateModes } from "../../src/state/modes.js"
import { statePaths } from "../../src/state/paths.js"

let root: string | undefined
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true })
})

describe("tightenStateModes", () => {
  it("state dir 0700; under logs/ directories 0700 and files 0600; other paths untouched", () => {
    root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "sv-sec-modes-"))
    const paths = statePaths(nodePath.join(root, "state"))
    fs.mkdirSync(nodePath.join(paths.logsDir, "archive"), { recursive: true })
    fs.chmodSync(paths.dir, 0o755)
    fs.chmodSync(paths.logsDir, 0o750)
    fs.chmodSync(nodePath.join(paths.logsDir, "archive"), 0o755)
    const files = ["app--web.log", "app--web.idx", "supervisor.log", "archive/old.log"].map((f) =>
      nodePath.join(paths.logsDir, f),
    )
    for (const f of files) fs.writeFileSync(f, "kept\n", { mode: 0o640 })
    // the proxy's CA certificate is public by design: not under logs/, not touched
    fs.mkdirSync(nodePath.join(paths.dir, "proxy"))
    const cert = nodePath.join(paths.dir, "proxy", "ca.pem")
    fs.writeFileSync(cert, "cert", { mode: 0o644 })
    fs.chmodSync(cert, 0o644)
    const link = nodePath.join(paths.logsDir, "elsewhere")
    fs.symlinkSync(cert, link)

    tightenStateModes(paths)

    const mode = (p: string) => fs.statSync(p).mode & 0o777
    expect(mode(paths.dir)).toBe(0o700)
    expect(mode(paths.logsDir)).toBe(0o700)
    expect(mode(nodePath.join(paths.logsDir, "archive"))).toBe(0o700)
    for (const f of files) {
      expect(mode(f), f).toBe(0o600)
      expect(fs.readFileSync(f, "utf8")).toBe("kept\n")
    }
    // a symlink is not followed out of logs/
    expect(mode(cert)).toBe(0o644)
    // a state directory that does not exist yet is no error
    expect(() => tightenStateModes(statePaths(nodePath.join(root!, "missing")))).not.toThrow()
  })
})
