import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Ref } from "effect"
import { renderCommand } from "../../src/supervisor/commandTemplates.js"
import { testTemplateScope } from "../../src/testing/templateScope.js"
import { definition, makeHarness, startReady } from "./helpers.js"

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
})
