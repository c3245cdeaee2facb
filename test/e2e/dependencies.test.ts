import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { type DaemonSandbox, daemonPids, makeDaemonSandbox } from "./harness.js"

// Each daemon appends its name to order.log when it starts, then says it is ready.
const daemon = (name: string, depends: Array<string> = [], extra = "") =>
  `[daemons.${name}]\nrun = "echo ${name} >> order.log; echo ready; exec sleep 300"\nready_output = "^ready$"\n${
    depends.length ? `depends = [${depends.map((d) => `"${d}"`).join(", ")}]\n` : ""
  }${extra}`

let sb: DaemonSandbox
beforeEach(() => {
  sb = makeDaemonSandbox()
})
afterEach(() => sb.destroy())

const order = (dir: string) => readFileSync(join(dir, "order.log"), "utf8").trim().split("\n")

describe("dependencies", () => {
  it("starting daemons that run already runs nothing again: not their completed one-shot dependency", () => {
    const dir = sb.project(
      "app",
      [
        '[daemons.migrate]\nrun = "echo migrate >> order.log"\nready_delay = 0.3\n',
        daemon("api", ["migrate"]),
        daemon("worker", ["migrate"]),
      ].join("\n"),
    )
    const first = sb.cli(["start", "api", "worker"], dir)
    expect(first.status, first.stderr).toBe(0)
    expect(first.stdout).toContain("app/migrate ran to completion (exit 0)")
    // through the quick client, and through the full CLI (a readiness flag is the CLI's to handle)
    for (const args of [
      ["start", "api", "worker"],
      ["start", "api", "worker", "--delay", "0.3"],
    ]) {
      const again = sb.cli(args, dir)
      expect(again.status, again.stderr).toBe(0)
      expect(again.stdout, args.join(" ")).not.toContain("migrate")
      expect(again.stdout, args.join(" ")).toContain("app/api is already running")
    }
    expect(order(dir).filter((l) => l === "migrate")).toHaveLength(1)
    // a daemon that does not run needs it again: then it runs
    expect(sb.cli(["stop", "worker"], dir).status).toBe(0)
    const restarted = sb.cli(["start", "api", "worker"], dir)
    expect(restarted.stdout).toContain("app/migrate ran to completion (exit 0)")
    expect(order(dir).filter((l) => l === "migrate")).toHaveLength(2)
  }, 30_000)

  it("starting a daemon starts its dependencies first, level by level", () => {
    const dir = sb.project(
      "app",
      [daemon("db"), daemon("cache"), daemon("api", ["db", "cache"]), daemon("web", ["api"])].join("\n"),
    )
    const r = sb.cli(["start", "web"], dir)
    expect(r.status, r.stderr).toBe(0)
    const seen = order(dir)
    expect(seen).toHaveLength(4)
    expect(new Set(seen.slice(0, 2))).toEqual(new Set(["db", "cache"]))
    expect(seen.slice(2)).toEqual(["api", "web"])
    for (const id of ["app/db", "app/cache", "app/api", "app/web"]) expect(r.stdout).toContain(id)
  }, 30_000)

  it("running dependencies are not restarted; --force restarts only the requested daemon", () => {
    const dir = sb.project("app", [daemon("db"), daemon("api", ["db"])].join("\n"))
    expect(sb.cli(["start", "db"], dir).status).toBe(0)
    const [dbPid] = daemonPids(sb.stateDir, "app/db")
    expect(sb.cli(["start", "api"], dir).status).toBe(0)
    const [apiPid] = daemonPids(sb.stateDir, "app/api")
    expect(sb.cli(["start", "api", "--force"], dir).status).toBe(0)
    expect(daemonPids(sb.stateDir, "app/db")).toEqual([dbPid])
    expect(daemonPids(sb.stateDir, "app/api")).not.toEqual([apiPid])
    expect(order(dir)).toEqual(["db", "api", "api"])
  }, 30_000)

  it("a dependency that fails to start fails its dependents with a message naming the root cause", () => {
    const dir = sb.project(
      "app",
      `[daemons.db]\nrun = "echo db >> order.log; exit 3"\nready_delay = 0.3\n${daemon("api", ["db"])}`,
    )
    const r = sb.cli(["start", "api"], dir)
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(
      /app\/api failed to start: not started: its dependency app\/db failed \(app\/db exited with code 3\)/,
    )
    expect(order(dir)).toEqual(["db"])
    expect(daemonPids(sb.stateDir, "app/api")).toEqual([])
  }, 30_000)
})

describe("stopping", () => {
  it("stop of several daemons stops dependents before their dependencies", () => {
    const stopLine = (name: string) =>
      `trap 'echo stop-${name} >> order.log; exit 0' TERM; echo ${name} >> order.log; echo ready; while :; do sleep 0.1; done`
    const dir = sb.project(
      "app",
      [
        // ready once the trap is set
        `[daemons.db]\nrun = "${stopLine("db")}"\nready_output = "^ready$"\n`,
        `[daemons.api]\nrun = "${stopLine("api")}"\nready_output = "^ready$"\ndepends = ["db"]\n`,
        `[daemons.web]\nrun = "${stopLine("web")}"\nready_output = "^ready$"\ndepends = ["api"]\n`,
      ].join("\n"),
    )
    expect(sb.cli(["start", "web"], dir).status).toBe(0)
    const r = sb.cli(["stop", "db", "web", "api"], dir)
    expect(r.status, r.stderr).toBe(0)
    expect(order(dir).filter((l) => l.startsWith("stop-"))).toEqual(["stop-web", "stop-api", "stop-db"])
    // and printed in that order, not in the order asked
    expect(r.stdout).toBe("✓ app/web stopped\n✓ app/api stopped\n✓ app/db stopped\n")
  }, 30_000)
})
