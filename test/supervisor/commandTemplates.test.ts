import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Either, FiberSet, Ref } from "effect"
import { renderCommand } from "../../src/supervisor/commandTemplates.js"
import { makeHookFirer } from "../../src/supervisor/hooks/fire.js"
import type { HookCommand } from "../../src/supervisor/hooks/HookRunner.js"
import { testTemplateScope } from "../../src/testing/templateScope.js"
import { awaitHooks, definition, makeHarness, startReady } from "./helpers.js"

const scope = testTemplateScope({
  id: "app/client",
  daemons: { "app/web": { ports: [8080] }, "app/worker": { ports: [] } },
})
const layers = { below: {}, environment: (env: Readonly<Record<string, string>>) => env }

describe("templates in run and env", () => {
  it("render {{ daemons.<name>.port }} and keep any other {{ ... }} text", () => {
    const rendered = renderCommand(
      {
        run: "curl http://127.0.0.1:{{ daemons.web.port }}/ && docker ps --format '{{.Names}}'",
        env: { WEB: "http://127.0.0.1:{{daemons.app/web.port}}", PLAIN: "x" },
      },
      scope,
      layers,
    )
    expect(Either.getOrThrow(rendered)).toEqual({
      run: "curl http://127.0.0.1:8080/ && docker ps --format '{{.Names}}'",
      env: { WEB: "http://127.0.0.1:8080", PLAIN: "x" },
      environment: { WEB: "http://127.0.0.1:8080", PLAIN: "x" },
    })
  })

  it("name the key and the template that cannot be rendered", () => {
    const fail = (config: { run: string; env: Record<string, string> }) =>
      Either.flip(renderCommand(config, scope, layers)).pipe(Either.getOrThrow)
    expect(fail({ run: "echo {{ daemons.nope.port }}", env: {} })).toMatchObject({
      _tag: "TemplateError",
      key: "run",
      template: "echo {{ daemons.nope.port }}",
      reason: "unknown_daemon",
      daemon: "app/nope",
      message:
        'run "echo {{ daemons.nope.port }}": cannot render {{ daemons.nope.port }}: no daemon app/nope is known to the supervisor (start it first)',
    })
    expect(fail({ run: "true", env: { W: "{{ daemons.worker.port }}" } })).toMatchObject({
      _tag: "TemplateError",
      key: "env.W",
      template: "{{ daemons.worker.port }}",
      reason: "no_port",
      daemon: "app/worker",
      message:
        'env.W "{{ daemons.worker.port }}": cannot render {{ daemons.worker.port }}: daemon app/worker has no port (set `port` on it)',
    })
    expect(fail({ run: "echo {{ daemons.web.host }}", env: {} })).toMatchObject({
      key: "run",
      reason: "unknown_variable",
      message:
        'run "echo {{ daemons.web.host }}": unknown template variable "daemons.web.host"; did you mean {{ daemons.web.port }}?',
    })
  })

  it.scoped("the supervisor spawns the rendered command and environment, with the resolved ports", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness({ busyPorts: [8080] })
      yield* startReady(h.sup, definition("web", { port: { expect: [8080], bump: true } }))
      yield* startReady(
        h.sup,
        definition("client", {
          run: "curl http://127.0.0.1:{{ daemons.web.port }}/",
          env: { WEB_URL: "http://127.0.0.1:{{ daemons.web.port }}/" },
        }),
      )
      const spawned = yield* Ref.get(h.fake.spawned)
      const client = spawned[spawned.length - 1]!
      expect(client.command).toBe("curl http://127.0.0.1:8081/")
      expect(client.env.WEB_URL).toBe("http://127.0.0.1:8081/")
    }),
  )

  it.scoped("a template the supervisor cannot render fails the start before anything is spawned", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const outcome = yield* h.sup.start(definition("client", { run: "echo {{ daemons.ghost.port }}" }))
      expect(outcome).toMatchObject({
        _tag: "StartFailed",
        message:
          'cannot start daemon app/client: run "echo {{ daemons.ghost.port }}": cannot render {{ daemons.ghost.port }}: no daemon app/ghost is known to the supervisor (start it first)',
      })
      expect(yield* Ref.get(h.fake.spawned)).toEqual([])
    }),
  )

  it.scoped(
    "run, env and hooks render the daemon's own names, other daemons' ports, env.VAR and settings",
    () =>
      Effect.gen(function* () {
        const h = yield* makeHarness({ settings: { proxy: { tld: "test" } } })
        yield* startReady(h.sup, definition("web", { port: { expect: [8080], bump: false } }))
        const names =
          "{{ daemon.id }} {{ daemon.name }} {{ daemon.namespace }} {{ daemon.dir }} {{ daemon.port }} " +
          "{{ daemon.ports[1] }} {{ daemons.web.port }} {{ settings.proxy.tld }}"
        yield* startReady(
          h.sup,
          definition("api", {
            port: { expect: [4000, 4001], bump: false },
            run: `serve ${names} {{ env.GREETING }} {{ env.PORT1 }}`,
            env: { GREETING: "hi from {{ env.HOME }}", MODE: "test" },
            hooks: { on_ready: `notify ${names} {{ env.GREETING }} {{ env.SUPERVISOR_RETRY_COUNT }}` },
          }),
        )
        const spawned = yield* Ref.get(h.fake.spawned)
        const api = spawned[spawned.length - 1]!
        const rendered = "app/api api app /srv/api 4000 4001 8080 test"
        // in run, env.VAR reads the final environment: the rendered env table and PORT1
        expect(api.command).toBe(`serve ${rendered} hi from /home/tester 4001`)
        // in an env value, the environment below the table (the supervisor's)
        expect(api.env.GREETING).toBe("hi from /home/tester")
        const [hook] = yield* awaitHooks(h, 1)
        expect(hook?.run).toBe(`notify ${rendered} hi from /home/tester 0`)
      }),
  )
})

describe("templates in hooks", () => {
  it.scoped("a hook whose template cannot be rendered is not run, and the supervisor log says why", () =>
    Effect.gen(function* () {
      const fibers = yield* FiberSet.make<unknown, never>()
      const runs = yield* Ref.make<ReadonlyArray<HookCommand>>([])
      const logged = yield* Deferred.make<string>()
      const fire = makeHookFirer({
        runner: {
          run: (c) => Ref.update(runs, (r) => [...r, c]).pipe(Effect.as({ _tag: "TimedOut" as const })),
        },
        fibers,
        shell: ["sh", "-c"],
        timeout: Duration.seconds(5),
        templateScope: (_def, env) => Effect.succeed({ ...scope, env }),
        log: (line) => Deferred.succeed(logged, line),
      })
      const def = definition("client", { hooks: { on_stop: "echo {{ env.NOPE }}" } })
      yield* fire(def, "on_stop", { env: { HOME: "/home/tester" } }, { retryCount: 0 })
      expect(yield* Deferred.await(logged)).toBe(
        '[hook app/client on_stop] not run: hooks.on_stop "echo {{ env.NOPE }}": cannot render {{ env.NOPE }}: NOPE is not set in the daemon\'s environment',
      )
      expect(yield* Ref.get(runs)).toEqual([])
    }),
  )
})
