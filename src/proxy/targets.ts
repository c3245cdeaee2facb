import * as nodePath from "node:path"
import { FileSystem } from "@effect/platform"
import { Deferred, Effect, Option, Stream, SubscriptionRef } from "effect"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { gitWorktreeDir } from "../config/worktree.js"
import { Control } from "../control/Control.js"
import { startOne } from "../control/startOne.js"
import type { DaemonDefinition } from "../domain/DaemonDefinition.js"
import type { StartOutcome } from "../domain/StartOutcome.js"
import type { Slugs } from "../domain/slugs.js"
import { worktreeHostLabel } from "../domain/Worktree.js"
import { ProcessSampler } from "../process/ProcessSampler.js"
import { ProjectRegistry } from "../registry/ProjectRegistry.js"
import { GLOBAL_DIR, type RegistrySnapshot } from "../registry/snapshot.js"
import type { DaemonState } from "../supervisor/DaemonState.js"
import { daemonUsage } from "../supervisor/resourceUsage.js"
import { Supervisor } from "../supervisor/Supervisor.js"
import { loopbackFor } from "./address.js"
import type { ProxyTarget, Resolution } from "./handler.js"
import type { ProxyOptions } from "./options.js"
import { failure, type ProxyFailure } from "./pages.js"
import type { Resolved } from "./worker/protocol.js"

/** How many of a daemon's last log lines a 502 page shows. */
const LOG_LINES = 20

const statusText = (r: DaemonState | undefined): string => {
  if (r === undefined) return "never started"
  const s = r.status
  const how =
    s.exit_code !== undefined && s.exit_code !== null
      ? ` (exit code ${s.exit_code})`
      : s.signal !== undefined && s.signal !== null
        ? ` (${s.signal})`
        : ""
  return `${s.type}${how}`
}

/**
 * Resolves a slug to the port its daemon serves on (the port it was given, else the one its
 * processes listen on), starting a stopped daemon first with `auto_start`: one start per daemon
 * however many requests wait, each request waiting up to `auto_start_timeout`. `onChange` is
 * called at any change of a daemon or of `[slugs]`: the targets the proxy kept are stale.
 */
export const makeResolver = (options: ProxyOptions, onChange: () => void) =>
  Effect.gen(function* () {
    const sup = yield* Supervisor
    const control = yield* Control
    const projects = yield* ProjectRegistry
    const config = yield* SupervisorConfig
    const sampler = yield* ProcessSampler
    const fs = yield* FileSystem.FileSystem
    /** The `[slugs]` table in force: the registry's last good global config, else the start's. */
    const slugsOf = (snapshot: RegistrySnapshot): Slugs =>
      snapshot.projects.find((p) => p.dir === GLOBAL_DIR)?.config?.slugs ?? config.slugs ?? {}
    let slugs = slugsOf(yield* SubscriptionRef.get(projects.snapshot))
    /** slug -> qualified daemon ID, once its project is known */
    const ids = new Map<string, string>()
    /** daemon ID -> the port found for its current process (a /proc scan only when the pid changes) */
    const ports = new Map<string, { readonly pid: number; readonly target: ProxyTarget }>()
    const starting = new Map<string, Deferred.Deferred<Resolution>>()
    /** Counts the changes of any daemon: a resolution that raced one is not kept by the proxy. */
    let generation = 0
    const forget = () => {
      generation++
      onChange()
    }
    yield* Effect.forkScoped(Stream.runForEach(sup.changes, () => Effect.sync(forget)))
    // an edited [slugs] table (`proxy add|remove`) is followed without a restart
    yield* Effect.forkScoped(
      Stream.runForEach(projects.snapshot.changes, (snapshot) =>
        Effect.sync(() => {
          // a worktree's project may have been noted, removed or forgotten: found again
          for (const key of ids.keys()) if (key.includes(".")) ids.delete(key)
          forget()
          const next = slugsOf(snapshot)
          if (next === slugs) return
          slugs = next
          ids.clear()
        }),
      ),
    )
    // concurrent first requests: one of them makes the project known, the others wait for it
    const noting = yield* Effect.makeSemaphore(1)

    const known = () =>
      Object.keys(slugs)
        .sort()
        .map((s) => `${s}.${options.tld}`)

    /** `daemon` of a slug names this definition: itself, or one of its instances (docs/replicas.md). */
    const names = (d: DaemonDefinition, daemon: string) =>
      d.id.name === daemon || d.instance?.daemon === `${d.id.namespace}/${daemon}`

    const daemonId = (slug: string, dir: string, daemon: string) => {
      const cached = ids.get(slug)
      return cached !== undefined ? Effect.succeed(cached) : noting.withPermits(1)(findId(slug, dir, daemon))
    }

    const findId = (slug: string, dir: string, daemon: string) =>
      Effect.gen(function* () {
        const cached = ids.get(slug)
        if (cached !== undefined) return cached
        const absolute = nodePath.resolve(dir)
        // the slug's project becomes known to the supervisor (its daemons listed, watched)
        yield* projects.note(absolute)
        const { projects: all } = yield* SubscriptionRef.get(projects.snapshot)
        const project = all.find((p) => p.dir === absolute)
        const defs = [...(project?.definitions.values() ?? [])]
        const def = defs.find((d) => names(d, daemon))
        if (def === undefined)
          return failure(502, "Bad Gateway", [
            `Slug ${slug}: no daemon named ${daemon} is configured in ${absolute}.`,
            ...(project?.problem === undefined ? [] : [project.problem]),
            "Fix the [slugs] entry in the user config or the project's supervisor.toml.",
          ])
        const id = def.instance?.daemon ?? def.id.qualified
        ids.set(slug, id)
        return id
      })

    /**
     * The daemon `slug` names in the worktree labelled `worktree` of its project: among the known
     * projects, else in the git worktree of that name, which becomes known (docs/worktrees.md).
     * Undefined when the project has no such worktree.
     */
    const findWorktreeId = (slug: string, dir: string, daemon: string, worktree: string) =>
      Effect.gen(function* () {
        const key = worktreeHostLabel(slug, worktree)
        const cached = ids.get(key)
        if (cached !== undefined) return cached
        const main = nodePath.resolve(dir)
        const inKnown = () =>
          Effect.map(SubscriptionRef.get(projects.snapshot), ({ projects: all }) => {
            for (const p of all)
              for (const d of p.definitions.values())
                if (d.worktree?.name === worktree && d.worktree.main === main && names(d, daemon))
                  return d.instance?.daemon ?? d.id.qualified
            return undefined
          })
        let id = yield* inKnown()
        if (id === undefined) {
          const found = yield* gitWorktreeDir(main, worktree).pipe(
            Effect.provideService(FileSystem.FileSystem, fs),
          )
          if (found === undefined) return undefined
          yield* projects.note(found)
          id = yield* inKnown()
        }
        if (id !== undefined) ids.set(key, id)
        return id
      })

    const targetOf = (id: string, r: DaemonState): Effect.Effect<ProxyTarget | undefined> =>
      Effect.gen(function* () {
        if (r.pid === null) return undefined
        const cached = ports.get(id)
        if (cached !== undefined && cached.pid === r.pid) return cached.target
        const port = (yield* daemonUsage(sampler, [r])).get(id)?.activePort ?? r.ports[0]
        if (port === undefined || port === null) return undefined
        const target: ProxyTarget = { _tag: "Target", port, address: loopbackFor(port) }
        ports.set(id, { pid: r.pid, target })
        return target
      })

    const down = (id: string, r: DaemonState | undefined, why: ReadonlyArray<string>) =>
      Effect.map(sup.lastLines(id, LOG_LINES), (log) =>
        failure(502, "Bad Gateway", [`Daemon ${id} is ${statusText(r)}.`, ...why], log),
      )

    /**
     * The targets of a replicated daemon's instances that are ready (running; an unhealthy one
     * only when none is healthy); undefined when it has no instance the supervisor knows.
     */
    const instanceTargets = (id: string): Effect.Effect<ReadonlyArray<ProxyTarget> | undefined> =>
      Effect.gen(function* () {
        const instances = (yield* sup.list).filter((r) => r.def.instance?.daemon === id)
        if (instances.length === 0) return undefined
        const running = instances.filter((r) => r.status.type === "running")
        const serving = running.length > 0 ? running : instances.filter((r) => r.status.type === "unhealthy")
        const found = yield* Effect.forEach(serving, (r) => targetOf(r.def.id.qualified, r))
        return found.filter((t): t is ProxyTarget => t !== undefined)
      })

    /** The targets of a running daemon (its ready instances for a replicated one), or why there are none. */
    const targets = (id: string): Effect.Effect<ReadonlyArray<ProxyTarget> | Resolution | undefined> =>
      Effect.gen(function* () {
        const instances = yield* instanceTargets(id)
        if (instances === undefined) return yield* target(id)
        return instances.length > 0 ? instances : undefined
      })

    /** The target of a running daemon, or why there is none. */
    const target = (id: string): Effect.Effect<Resolution | undefined> =>
      Effect.gen(function* () {
        const r = Option.getOrUndefined(yield* Effect.option(sup.get(id)))
        // an unhealthy daemon still runs: it is served until its health check restarts it
        if (r?.status.type !== "running" && r?.status.type !== "unhealthy") return undefined
        const found = yield* targetOf(id, r)
        if (found !== undefined) return found
        return yield* down(id, r, [
          "It runs but listens on no TCP port; give it `port` in its configuration.",
        ])
      })

    const afterStart = (id: string, outcome: StartOutcome): Effect.Effect<Resolution> =>
      Effect.gen(function* () {
        const r = Option.getOrUndefined(yield* Effect.option(sup.get(id)))
        switch (outcome._tag) {
          case "Ready":
          case "AlreadyRunning": {
            const found = yield* targets(id)
            if (found === undefined) return yield* down(id, r, ["It stopped right after it started."])
            return Array.isArray(found) ? found[0]! : (found as Resolution)
          }
          case "StartFailed":
            return failure(
              502,
              "Bad Gateway",
              [`Daemon ${id} could not be started: ${outcome.message}`],
              outcome.output,
            )
          case "Completed":
            return yield* down(id, r, ["It exited with status 0 before it was ready: it serves nothing."])
          case "Disabled":
            return yield* down(id, r, [`It is disabled: \`supervisor enable ${id}\` allows it to start.`])
          case "Interrupted":
            return yield* down(id, r, ["It was stopped while it started."])
        }
      })

    /** One start per daemon: later requests wait on the first one's. */
    const startOnce = (id: string) =>
      Effect.gen(function* () {
        const running = starting.get(id)
        if (running !== undefined) return running
        const done = yield* Deferred.make<Resolution>()
        starting.set(id, done)
        yield* startOne(control, id, { force: false, reason: "proxy" }).pipe(
          Effect.flatMap((outcome) => afterStart(id, outcome)),
          Effect.catchAll((e) =>
            Effect.succeed(failure(502, "Bad Gateway", [`Daemon ${id} could not be started: ${e.message}`])),
          ),
          Effect.flatMap((res) => Deferred.succeed(done, res)),
          Effect.ensuring(Effect.sync(() => starting.delete(id))),
          // the start goes on when a request gives up waiting: the next request finds it running
          Effect.forkDaemon,
        )
        return done
      })

    const resolve = (
      slug: string,
      worktree: string | undefined,
    ): Effect.Effect<Resolution | ReadonlyArray<ProxyTarget>> =>
      Effect.gen(function* () {
        const entry = slugs[slug]
        if (entry === undefined) {
          const list = known()
          return failure(404, "Not Found", [
            `No slug ${slug} is configured.`,
            list.length === 0
              ? "No slugs are configured: add one to [slugs] in the user config."
              : `Known slugs: ${list.join(", ")}.`,
          ])
        }
        // `<worktree>.<slug>`: the worktree's daemon; a label naming no worktree is the slug's own
        const inWorktree =
          worktree === undefined
            ? undefined
            : yield* noting.withPermits(1)(findWorktreeId(slug, entry.dir, entry.daemon, worktree))
        const id = inWorktree ?? (yield* daemonId(slug, entry.dir, entry.daemon))
        if (typeof id !== "string") return id satisfies ProxyFailure
        const ready = yield* targets(id)
        if (ready !== undefined) return ready
        if (!options.autoStart) {
          const r = Option.getOrUndefined(yield* Effect.option(sup.get(id)))
          return yield* down(id, r, ["settings.proxy.auto_start is off: start it with `supervisor start`."])
        }
        const done = yield* startOnce(id)
        const seconds = Math.round(options.autoStartTimeout / 100) / 10
        return yield* Deferred.await(done).pipe(
          Effect.timeoutTo({
            duration: options.autoStartTimeout,
            onSuccess: (r): Resolution => r,
            onTimeout: () =>
              failure(504, "Gateway Timeout", [
                `Daemon ${id} was started for this request but was not ready within ${seconds}s (settings.proxy.auto_start_timeout).`,
                "It goes on starting: reload the page in a moment.",
              ]),
          }),
        )
      })

    /** A slug's targets (or why there are none), with whether no daemon changed meanwhile. */
    return (slug: string, worktree?: string): Effect.Effect<Resolved> => {
      const before = generation
      return Effect.map(resolve(slug, worktree), (r): Resolved => {
        const cacheable = generation === before
        if (Array.isArray(r)) return { targets: r, failure: undefined, cacheable }
        const one = r as Resolution
        return one._tag === "Target"
          ? { targets: [one], failure: undefined, cacheable }
          : { targets: undefined, failure: one, cacheable: false }
      })
    }
  })
