import { Worker } from "node:worker_threads"
import { Cause, Console, Deferred, Effect, Exit, Ref, Runtime } from "effect"
import { HostInfo } from "../domain/HostInfo.js"
import { proxyListenerOrigin } from "../domain/proxyUrl.js"
import { RESPONSE_TIMEOUT } from "./handler.js"
import type { ProxyOptions } from "./options.js"
import { failure } from "./pages.js"
import { makeResolver } from "./targets.js"
import { proxyWorkerFile } from "./worker/file.js"
import type { FromWorker, Resolved, ToWorker, WorkerSetup } from "./worker/protocol.js"

/** How long an idle client connection of the relay stays open: Node's HTTP server keeps 5 s too. */
const IDLE_TIMEOUT = 5_000

/** A proxy listener that is up: what a change of `[settings.proxy]` needs to replace it. */
export interface ProxyServing {
  /** Stops taking connections (at once: the port is free for the next listener). */
  readonly stopAccepting: Effect.Effect<void>
  /** Succeeds once every open connection has ended (they are closed when the scope closes). */
  readonly drained: Effect.Effect<void>
}

/**
 * The reverse proxy with these options (host/proxyListener.ts serves it while it is enabled),
 * until the scope closes (docs/proxy.md). Its listener, relay and TLS run in a worker thread
 * (src/proxy/worker/entry.ts), which asks this thread for the daemon of each slug it has not kept.
 * A port in use or a server that cannot be made is said in the supervisor's log and by
 * `supervisor supervisor status`, and gives undefined; the supervisor runs on.
 */
export const serveProxy = (options: ProxyOptions) =>
  Effect.gen(function* () {
    const host = yield* HostInfo
    const runtime = yield* Effect.runtime<never>()
    const notStarted = (why: string) =>
      Ref.update(host.listeners, (l) => ({
        ...l,
        proxy: undefined,
        proxyTld: undefined,
        proxyProblem: `not started: ${why}`,
      })).pipe(Effect.zipRight(Console.error(`proxy: not started: ${why}`)), Effect.as(undefined))
    const setup: WorkerSetup = {
      https: options.https,
      host: options.host,
      port: options.port,
      tld: options.tld,
      stateDir: host.stateDir,
      responseTimeout: RESPONSE_TIMEOUT,
      idleTimeout: IDLE_TIMEOUT,
    }
    // no execArgv: the supervisor's Node flags (src/host/nodeFlags.ts) are V8's, process-wide,
    // and one of them (--v8-pool-size) is refused by a worker
    const made = yield* Effect.try(
      () => new Worker(proxyWorkerFile, { workerData: setup, execArgv: [] }),
    ).pipe(Effect.either)
    if (made._tag === "Left") return yield* notStarted(String(made.left.error))
    const worker = made.right
    const send = (message: ToWorker) => worker.postMessage(message)
    const resolve = yield* makeResolver(options, () => send({ _tag: "Forget" }))
    const started = yield* Deferred.make<number, string>()
    const closed = yield* Deferred.make<void>()
    const notAccepting = yield* Deferred.make<void>()
    const answer = (id: number, slug: string, worktree: string | undefined) =>
      resolve(slug, worktree).pipe(
        Effect.catchAllCause(
          (cause): Effect.Effect<Resolved> =>
            Effect.succeed({
              targets: undefined,
              failure: failure(500, "Proxy Error", [Cause.pretty(cause)]),
              cacheable: false,
            }),
        ),
        Effect.map((resolved) => send({ _tag: "Resolved", id, ...resolved })),
      )
    const run = Runtime.runFork(runtime)
    let listening = false
    worker.on("message", (message: FromWorker) => {
      switch (message._tag) {
        case "Resolve":
          return void run(answer(message.id, message.slug, message.worktree))
        case "Listening":
          listening = true
          return void Deferred.unsafeDone(started, Exit.succeed(message.port))
        case "NotStarted":
          return void Deferred.unsafeDone(started, Exit.fail(message.why))
        case "Note":
          return void run(Console.error(`proxy: ${message.text}`))
        case "NotAccepting":
          return void Deferred.unsafeDone(notAccepting, Exit.void)
        case "Closed":
          return void Deferred.unsafeDone(closed, Exit.void)
      }
    })
    // a fault of the worker ends the proxy, not the supervisor; before it listens, the start
    // below says why it did not
    worker.on("error", (e) => {
      const why = `stopped: ${e.message}`
      if (!listening) return void Deferred.unsafeDone(started, Exit.fail(why))
      run(
        Ref.update(host.listeners, (l) => ({
          ...l,
          proxy: undefined,
          proxyTld: undefined,
          proxyProblem: why,
        })).pipe(Effect.zipRight(Console.error(`proxy: ${why}`))),
      )
    })
    worker.on("exit", () => {
      Deferred.unsafeDone(notAccepting, Exit.void)
      Deferred.unsafeDone(closed, Exit.void)
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => send({ _tag: "Close" })).pipe(
        Effect.zipRight(Deferred.await(closed)),
        Effect.zipRight(Effect.promise(() => worker.terminate())),
      ),
    )
    const bound = yield* Effect.either(Deferred.await(started))
    if (bound._tag === "Left") return yield* notStarted(bound.left)
    const scheme = options.https ? "https" : "http"
    yield* Ref.update(host.listeners, (l) => {
      const { proxyProblem: _, ...rest } = l
      return {
        ...rest,
        proxy: `${proxyListenerOrigin(options.https, options.host)}:${bound.right}`,
        proxyTld: options.tld,
      }
    })
    yield* Console.error(
      `Proxy listening on ${scheme}://${options.host}:${bound.right} (<slug>.${options.tld}:${bound.right})`,
    )
    return {
      // the port is free once the worker says so: the next listener may take it
      stopAccepting: Effect.zipRight(
        Effect.sync(() => send({ _tag: "StopAccepting" })),
        Deferred.await(notAccepting),
      ),
      drained: Deferred.await(closed),
    } satisfies ProxyServing
  })
