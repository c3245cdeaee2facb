import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Deferred, Effect, Layer, Ref, Schema } from "effect"
import { makeUsageHistory, UsageHistory, type UsageHistoryShape } from "../automation/history/UsageHistory.js"
import { PresenceLive } from "../automation/presence/live.js"
import { ConfigLoaderLive } from "../config/ConfigLoader.js"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { ControlLive } from "../control/Control.js"
import { HostInfo, type ListenerUrls, type ShutdownMode } from "../domain/HostInfo.js"
import { Settings } from "../domain/Settings.js"
import { VERSION } from "../domain/version.js"
import { EventLog, makeEventLog } from "../events/EventLog.js"
import { ApiLive } from "../host/server.js"
import { makeSessions } from "../host/sessions.js"
import { LogStore } from "../logs/LogStore.js"
import { ProcessService } from "../process/ProcessService.js"
import { ProjectRegistryLive } from "../registry/ProjectRegistry.js"
import { makeStateStore, StateStore } from "../state/StateStore.js"
import { StorageHealth } from "../state/StorageHealth.js"
import type { ReadinessProbesShape } from "../supervisor/readiness/index.js"
import { SupervisorLive } from "../supervisor/Supervisor.js"
import { makeFakeProcessSampler } from "./FakeProcessSampler.js"
import { makeFakeProcessService } from "./FakeProcessService.js"
import { makeFakeStorageHealth } from "./FakeStorageHealth.js"
import { makeRecordingHookRunner, portsLayer, probesLayer } from "./fakes.js"
import { makeMemoryLogStore } from "./MemoryLogStore.js"

export interface ApiReply {
  readonly status: number
  readonly contentType: string | null
  readonly text: string
  /** The body as JSON (fails the test's effect when it is not JSON). */
  readonly json: unknown
}

export interface ApiHarnessOptions {
  readonly probes?: ReadinessProbesShape
  /** Settings in the file form, e.g. `{ supervisor: { stop_timeout: "1s" } }`. */
  readonly settings?: Record<string, unknown>
}

/**
 * The supervisor's HTTP API in the test's own process (`HttpApiBuilder.toWebHandler`): the real
 * handlers, Control, Supervisor, project registry and state store (on a temp file), over the fake
 * process service, an in-memory log store and fake probes, hooks and port checks. No socket, no
 * token: requests go straight to the handler. Disposed with the scope.
 */
export const makeApiHarness = (options: ApiHarnessOptions = {}) =>
  Effect.gen(function* () {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "supervisor-api-"))),
      (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true })),
    )
    const fake = yield* makeFakeProcessService()
    const logs = yield* makeMemoryLogStore({ dir: nodePath.join(dir, "logs") })
    const hooks = yield* makeRecordingHookRunner
    const health = yield* makeFakeStorageHealth()
    const state = yield* makeStateStore(nodePath.join(dir, "state.json")).pipe(
      Effect.provideService(StorageHealth, health),
    )
    const events = yield* makeEventLog()
    // nothing of the machine's own configuration is read
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: nodePath.join(dir, "home"),
      SUPERVISOR_CONFIG_DIR: nodePath.join(dir, "home", ".config", "supervisor"),
      SUPERVISOR_SYSTEM_CONFIG_DIR: nodePath.join(dir, "etc", "supervisor"),
    }
    const host = Layer.succeed(HostInfo, {
      version: VERSION,
      startedAt: Date.now(),
      stateDir: dir,
      socket: nodePath.join(dir, "sock", "api.sock"),
      listeners: yield* Ref.make<ListenerUrls>({ web: null, api: null }),
      sessions: makeSessions(),
      shutdown: yield* Deferred.make<ShutdownMode>(),
    })
    const trees = yield* makeFakeProcessSampler
    // the usage history without its loop: nothing is sampled unless a test asks (`sampleUsage`)
    const built = yield* Deferred.make<UsageHistoryShape>()
    const history = Layer.effect(
      UsageHistory,
      Effect.tap(makeUsageHistory, (h) => Deferred.succeed(built, h)),
    )
    const sampleUsage = Effect.flatMap(Deferred.await(built), (h) => h.sampleNow)
    const services = Layer.mergeAll(ControlLive, PresenceLive.pipe(Layer.provide(ControlLive)), history).pipe(
      Layer.provideMerge(Layer.merge(SupervisorLive, ProjectRegistryLive)),
      Layer.provideMerge(ConfigLoaderLive),
      Layer.provideMerge(
        Layer.mergeAll(
          Layer.succeed(StateStore, state),
          Layer.succeed(StorageHealth, health),
          Layer.succeed(EventLog, events),
          Layer.succeed(LogStore, logs.store),
          Layer.succeed(ProcessService, fake.service),
          trees.layer,
          Layer.succeed(SupervisorConfig, {
            settings: Schema.decodeUnknownSync(Settings)(options.settings ?? {}),
            env,
          }),
          probesLayer(options.probes),
          hooks.layer,
          portsLayer(),
          host,
          NodeFileSystem.layer,
        ),
      ),
    )
    const web = yield* Effect.acquireRelease(
      Effect.sync(() =>
        HttpApiBuilder.toWebHandler(
          Layer.mergeAll(ApiLive, HttpServer.layerContext).pipe(Layer.provide(services)),
        ),
      ),
      (w) => Effect.promise(() => w.dispose()),
    )
    /** One request; `body` is sent as JSON, or as it is when it is a string. */
    const request = (method: string, path: string, body?: unknown) =>
      Effect.promise(async (): Promise<ApiReply> => {
        const init: RequestInit =
          body === undefined
            ? { method }
            : {
                method,
                headers: { "content-type": "application/json" },
                body: typeof body === "string" ? body : JSON.stringify(body),
              }
        const response = await web.handler(new Request(`http://localhost${path}`, init))
        const text = await response.text()
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        return { status: response.status, contentType: response.headers.get("content-type"), text, json }
      })
    /**
     * A GET (a POST of `payload` when given) of an open-ended stream: its status, content type, and
     * `read(until)`, which reads the body until `until` holds for the text so far.
     */
    const openStream = (path: string, headers: Record<string, string> = {}, payload?: unknown) =>
      Effect.promise(async () => {
        const init: RequestInit =
          payload === undefined
            ? { headers }
            : {
                method: "POST",
                headers: { ...headers, "content-type": "application/json" },
                body: JSON.stringify(payload),
              }
        const response = await web.handler(new Request(`http://localhost${path}`, init))
        const body = response.body
        if (body === null) throw new Error(`no body for ${path}`)
        const reader = body.getReader()
        const decoder = new TextDecoder()
        let text = ""
        const read = (until: (text: string) => boolean) =>
          Effect.promise(async () => {
            while (!until(text)) {
              const next = await reader.read()
              if (next.done) break
              text += decoder.decode(next.value, { stream: true })
            }
            return text
          })
        const close = Effect.promise(() => reader.cancel())
        return { status: response.status, contentType: response.headers.get("content-type"), read, close }
      })
    /** Writes a project's supervisor.toml under the harness's directory; its path. */
    const project = (name: string, toml: string) => {
      const projectDir = nodePath.join(dir, name)
      fs.mkdirSync(projectDir, { recursive: true })
      fs.writeFileSync(nodePath.join(projectDir, "supervisor.toml"), toml)
      return projectDir
    }
    return { request, openStream, project, fake, logs, hooks: hooks.hooks, dir, trees, sampleUsage, events }
  })
