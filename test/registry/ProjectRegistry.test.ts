import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeFileSystem } from "@effect/platform-node"
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Schema, Scope, Stream, SubscriptionRef, TestClock } from "effect"
import { ConfigLoaderLive } from "../../src/config/ConfigLoader.js"
import { SupervisorConfig } from "../../src/config/SupervisorConfig.js"
import { Settings } from "../../src/domain/Settings.js"
import { EventLog, EventLogLive } from "../../src/events/EventLog.js"
import {
  ProjectRegistry,
  ProjectRegistryLayer,
  type ProjectRegistryOptions,
  type RegistrySnapshot,
} from "../../src/registry/ProjectRegistry.js"
import { emptyState } from "../../src/state/State.js"
import { makeStateStore, StateStore } from "../../src/state/StateStore.js"
import { StorageHealthFake } from "../../src/testing/FakeStorageHealth.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const sandbox = () => {
  const root = fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-registry-"))
  dirs.push(root)
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: nodePath.join(root, "home"),
    SUPERVISOR_CONFIG_DIR: nodePath.join(root, "home", ".config", "supervisor"),
    SUPERVISOR_SYSTEM_CONFIG_DIR: nodePath.join(root, "etc", "supervisor"),
  }
  const write = (rel: string, text: string) => {
    const file = nodePath.join(root, rel)
    fs.mkdirSync(nodePath.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
    return file
  }
  const stateFile = nodePath.join(root, "state.json")
  /** The registry's layer over a state store on `stateFile` (kept across layers: a supervisor restart). */
  const layer = (options: ProjectRegistryOptions = {}) =>
    ProjectRegistryLayer(options).pipe(
      Layer.provideMerge(ConfigLoaderLive),
      Layer.provideMerge(
        Layer.effect(StateStore, makeStateStore(stateFile)).pipe(Layer.provide(StorageHealthFake)),
      ),
      Layer.provideMerge(EventLogLive()),
      Layer.provide(
        Layer.mergeAll(
          NodeFileSystem.layer,
          Layer.succeed(SupervisorConfig, { settings: Schema.decodeUnknownSync(Settings)({}), env }),
        ),
      ),
    )
  return { root, env, write, stateFile, layer, path: (rel: string) => nodePath.join(root, rel) }
}

const daemons = (s: RegistrySnapshot) => s.projects.flatMap((p) => [...p.definitions.keys()]).sort()

/** Waits (real time, 5 s at most: half the reload interval) for a snapshot that satisfies `ok`. */
const snapshotWhere = (ok: (s: RegistrySnapshot) => boolean) =>
  Effect.flatMap(ProjectRegistry, (r) =>
    r.snapshot.changes.pipe(
      Stream.filter(ok),
      Stream.runHead,
      Effect.flatten,
      Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error("no such snapshot in 5 s") }),
    ),
  )

const app = (...names: Array<string>) =>
  names.map((n) => `[daemons.${n}]\nrun = "exec sleep 30"\n`).join("\n")

describe("ProjectRegistry (known projects and their live configuration)", () => {
  it.live("reloads a registered project when its file changes, and sees a file created later", () => {
    const sb = sandbox()
    const file = sb.write("w/shop/supervisor.toml", app("web"))
    return Effect.gen(function* () {
      const registry = yield* ProjectRegistry
      expect(yield* registry.register(sb.path("w/shop"))).toEqual({ name: "shop", dir: sb.path("w/shop") })
      expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual(["shop/web"])
      fs.writeFileSync(file, app("web", "worker"))
      yield* snapshotWhere((s) => daemons(s).includes("shop/worker"))
      // once the watch is set up: every edit is seen
      fs.writeFileSync(file, app("web"))
      yield* snapshotWhere((s) => !daemons(s).includes("shop/worker"))
      // a noted directory without a config yet: its file is watched before it exists
      yield* registry.note(sb.path("w/later"))
      sb.write("w/later/.config/supervisor.toml", app("job"))
      yield* snapshotWhere((s) => daemons(s).includes("later/job"))
      expect((yield* registry.definitions).map((d) => d.id.qualified).sort()).toEqual([
        "later/job",
        "shop/web",
      ])
    }).pipe(Effect.provide(sb.layer()))
  })

  it.live(
    "a project directory that is gone keeps its last configuration, marked gone, until forgotten",
    () => {
      const sb = sandbox()
      sb.write("w/tree/supervisor.toml", app("web"))
      return Effect.gen(function* () {
        const registry = yield* ProjectRegistry
        yield* registry.note(sb.path("w/tree"))
        expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual(["tree/web"])
        fs.rmSync(sb.path("w/tree"), { recursive: true })
        const gone = yield* snapshotWhere((s) => s.projects.some((p) => p.gone === true))
        const tree = gone.projects.find((p) => p.dir === sb.path("w/tree"))!
        expect([...tree.definitions.keys()]).toEqual(["tree/web"])
        expect(tree.problem).toBeUndefined()
        expect(yield* registry.forget("tree")).toEqual({ name: "tree", dir: sb.path("w/tree") })
        expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual([])
      }).pipe(Effect.provide(sb.layer()))
    },
  )

  it.live(
    "an invalid file keeps the last good configuration and publishes the problem (file, line, key, fix)",
    () => {
      const sb = sandbox()
      const file = sb.write("w/shop/supervisor.toml", app("web"))
      return Effect.gen(function* () {
        const registry = yield* ProjectRegistry
        yield* registry.register(sb.path("w/shop"))
        fs.writeFileSync(file, `${app("web")}\n[daemons.bad]\nrun = 3\n`)
        const broken = yield* snapshotWhere((s) => s.projects.some((p) => p.problem !== undefined))
        const shop = broken.projects.find((p) => p.dir === sb.path("w/shop"))!
        expect([...shop.definitions.keys()]).toEqual(["shop/web"]) // the last good one
        expect(shop.problems.map((p) => [p.file, p.line, p.key])).toEqual([[file, 5, "daemons.bad.run"]])
        expect(shop.problem).toContain(`${file}:5: daemons.bad.run:`)
        // still found (from the last good configuration)
        expect((yield* registry.find("shop/web"))?.def.config.run).toBe("exec sleep 30")
        fs.writeFileSync(file, app("web", "fixed"))
        const fixed = yield* snapshotWhere((s) => daemons(s).includes("shop/fixed"))
        expect(fixed.projects.every((p) => p.problem === undefined)).toBe(true)
        // both are events: the problem (file, line, key), then the configuration loaded again
        const events = yield* EventLog
        const seen = yield* events.subscribe({ since: 0 }).pipe(
          Stream.take(yield* events.lastSeq),
          Stream.runCollect,
          Effect.map((c) => [...c]),
        )
        expect(seen).toMatchObject([
          { _tag: "ConfigInvalid", seq: 1, file, line: 5, key: "daemons.bad.run" },
          { _tag: "ConfigReloaded", seq: 2, dir: sb.path("w/shop") },
        ])
      }).pipe(Effect.provide(sb.layer()))
    },
  )

  it.live(
    "a file read empty (between the truncation and the write of a save) is read again before it counts",
    () => {
      const sb = sandbox()
      const file = sb.write("w/shop/supervisor.toml", app("web"))
      return Effect.gen(function* () {
        const registry = yield* ProjectRegistry
        yield* registry.register(sb.path("w/shop"))
        fs.writeFileSync(file, "")
        yield* registry.reload
        // read empty once: the last configuration stays
        expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual(["shop/web"])
        // the save completes before the second read: its content counts, the empty read never did
        fs.writeFileSync(file, app("web", "worker"))
        yield* snapshotWhere((s) => daemons(s).join() === "shop/web,shop/worker")
        // a file that stays empty is read empty twice: then it counts
        fs.writeFileSync(file, "")
        yield* registry.reload
        expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual(["shop/web", "shop/worker"])
        yield* snapshotWhere((s) => daemons(s).length === 0)
      }).pipe(Effect.provide(sb.layer({ watchFiles: false })))
    },
  )

  it.scoped("reloads every settings.supervisor.watch_interval (10 s by default) without file events", () => {
    const sb = sandbox()
    const file = sb.write("w/shop/supervisor.toml", app("web"))
    fs.writeFileSync(
      sb.stateFile,
      JSON.stringify({ ...emptyState(), namespaces: { shop: sb.path("w/shop") } }),
    )
    return Effect.gen(function* () {
      const registry = yield* ProjectRegistry
      expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual(["shop/web"])
      fs.writeFileSync(file, app("web", "worker"))
      // the interval fiber is asleep: nothing changes before the interval has passed
      while ((yield* TestClock.sleeps()).length === 0) yield* Effect.yieldNow()
      const asleep = yield* TestClock.sleeps()
      yield* TestClock.adjust("9 seconds")
      // the same sleep is still pending: the fiber has not woken (a reload would have slept again)
      expect(yield* TestClock.sleeps()).toEqual(asleep)
      expect(daemons(yield* SubscriptionRef.get(registry.snapshot))).toEqual(["shop/web"])
      yield* TestClock.adjust("1 second")
      const realDeadline = Effect.promise(() => new Promise((r) => setTimeout(r, 10_000))).pipe(
        Effect.zipRight(Effect.fail(new Error("no reload after the interval"))),
      )
      yield* Effect.raceFirst(
        registry.snapshot.changes.pipe(
          Stream.filter((s) => daemons(s).includes("shop/worker")),
          Stream.runHead,
        ),
        realDeadline,
      )
    }).pipe(Effect.provide(sb.layer({ watchFiles: false })))
  })

  it.live("known projects survive a restart of the layer; forget removes one", () => {
    const sb = sandbox()
    sb.write("w/shop/supervisor.toml", app("web"))
    sb.write("w/blog/supervisor.toml", app("post"))
    const layer = sb.layer()
    return Effect.gen(function* () {
      const first = yield* Scope.make()
      const before = Context.get(yield* Layer.buildWithScope(layer, first), ProjectRegistry)
      yield* before.register(sb.path("w/shop"))
      yield* before.note(sb.path("w/blog"))
      yield* Scope.close(first, Exit.void)
      yield* Effect.gen(function* () {
        const after = yield* ProjectRegistry
        const snapshot = yield* SubscriptionRef.get(after.snapshot)
        expect(daemons(snapshot)).toEqual(["blog/post", "shop/web"])
        expect(snapshot.projects.find((p) => p.dir === sb.path("w/shop"))?.sources).toEqual(["registered"])
        expect(yield* after.forget("shop")).toEqual({ name: "shop", dir: sb.path("w/shop") })
        expect(daemons(yield* SubscriptionRef.get(after.snapshot))).toEqual(["blog/post"])
        // a noted project is forgotten by its namespace too
        yield* after.forget("blog")
        expect(daemons(yield* SubscriptionRef.get(after.snapshot))).toEqual([])
        expect(yield* Effect.flip(after.forget("shop"))).toMatchObject({
          _tag: "NamespaceNotForgotten",
          name: "shop",
          reason: "unknown",
          message: 'no namespace "shop" is registered or known',
        })
        const state = yield* (yield* StateStore).get
        expect(state.namespaces).toEqual({})
        expect(state.projects).toEqual([])
      }).pipe(Effect.provide(layer))
    })
  })

  it.live(
    "a [namespaces] entry of the user config makes its project known; it is not forgotten over the API",
    () => {
      const sb = sandbox()
      sb.write("w/shop/supervisor.toml", app("web"))
      sb.write(
        "home/.config/supervisor/config.toml",
        `[namespaces]\nshop = { dir = "${sb.path("w/shop")}" }\n`,
      )
      return Effect.gen(function* () {
        const registry = yield* ProjectRegistry
        const snapshot = yield* SubscriptionRef.get(registry.snapshot)
        expect(daemons(snapshot)).toEqual(["shop/web"])
        expect(snapshot.projects.find((p) => p.dir === sb.path("w/shop"))).toMatchObject({
          sources: ["config"],
          names: ["shop"],
        })
        expect(yield* Effect.flip(registry.forget("shop"))).toMatchObject({
          _tag: "NamespaceNotForgotten",
          name: "shop",
          reason: "in_user_config",
          message: 'namespace "shop" is listed under [namespaces] in the user config: remove it there',
        })
      }).pipe(Effect.provide(sb.layer()))
    },
  )

  it.live("register and find fail with the facts: the directory, the reason, the problem", () => {
    const sb = sandbox()
    sb.write("w/empty/readme.txt", "no project here")
    const file = sb.write("w/bad/supervisor.toml", "[daemons.web]\nrun = 3\n")
    const shop = sb.write("w/shop/supervisor.toml", app("web"))
    const layer = sb.layer()
    return Effect.gen(function* () {
      const first = yield* Scope.make()
      const registry = Context.get(yield* Layer.buildWithScope(layer, first), ProjectRegistry)
      expect(yield* Effect.flip(registry.register("w/shop"))).toMatchObject({
        _tag: "RegisterRefused",
        dir: "w/shop",
        reason: "not_absolute",
        message: 'dir must be an absolute path, got "w/shop"',
      })
      expect(yield* Effect.flip(registry.register(sb.path("w/empty")))).toMatchObject({
        _tag: "RegisterRefused",
        dir: sb.path("w/empty"),
        reason: "no_config",
        message: `no project configuration (supervisor.toml) in ${sb.path("w/empty")} or above it`,
      })
      const unreadable = yield* Effect.flip(registry.register(sb.path("w/bad")))
      if (unreadable._tag !== "ProjectUnreadable")
        throw new Error(`not ProjectUnreadable: ${unreadable._tag}`)
      expect(unreadable.dir).toBe(sb.path("w/bad"))
      expect(unreadable.message).toBe(
        `cannot read the configuration of ${sb.path("w/bad")}: ${unreadable.problem}`,
      )
      expect(unreadable.problem).toContain(`${file}:2: daemons.web.run:`)
      // a registered project whose file breaks while no supervisor runs never loads again
      yield* registry.register(sb.path("w/shop"))
      yield* Scope.close(first, Exit.void)
      fs.writeFileSync(shop, "[daemons.web]\nrun = 3\n")
      const found = yield* Effect.flip(Effect.flatMap(ProjectRegistry, (r) => r.find("shop/web"))).pipe(
        Effect.provide(layer),
      )
      expect(found).toMatchObject({ _tag: "ProjectUnreadable", dir: sb.path("w/shop"), namespace: "shop" })
      expect(found.problem).toContain(`${shop}:2: daemons.web.run:`)
      expect(found.message).toBe(
        `cannot read the configuration of namespace shop (${sb.path("w/shop")}): ${found.problem}`,
      )
    })
  })
})
