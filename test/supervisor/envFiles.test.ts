// biome-ignore-all lint/suspicious/noTemplateCurlyInString: dotenv text, where ${VAR} is expanded by the supervisor
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { awaitHooks, definition, makeHarness, startReady } from "./helpers.js"

describe("env files in the lifecycle", () => {
  it.scoped("layers the supervisor's env, env files and env tables in the documented order", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const shared = nodePath.join(h.dir, "shared.env")
      const own = nodePath.join(h.dir, "own.env")
      fs.writeFileSync(shared, "HOME=/from/shared-file\nA=shared-file\nB=shared-file\nC=shared-file\n")
      fs.writeFileSync(own, "C=own-file\nD=own-file\nFROM_BELOW=${B}+${HOME}\n")
      const def = definition("web", {
        env: { D: "env", MODE: "test" },
        env_file: [
          { path: own, optional: false },
          { path: nodePath.join(h.dir, "absent.env"), optional: true },
        ],
        shared_env: { B: "shared-env", C: "shared-env" },
        shared_env_file: [{ path: shared, optional: false }],
      })
      yield* startReady(h.sup, def)
      const [spawned] = yield* Ref.get(h.fake.spawned)
      expect(spawned?.env).toMatchObject({
        PATH: "/usr/bin:/bin", // the supervisor's, untouched
        HOME: "/from/shared-file", // a file overrides the supervisor's environment
        A: "shared-file",
        B: "shared-env",
        C: "own-file",
        D: "env",
        FROM_BELOW: "shared-env+/from/shared-file",
        SUPERVISOR_DAEMON_ID: "app/web",
      })
    }),
  )

  it.scoped("renders templates of the top-level [env] as it renders env", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      yield* startReady(
        h.sup,
        definition("web", { port: 4100, shared_env: { SELF: "port {{ daemons.web.port }}" } }),
      )
      const [spawned] = yield* Ref.get(h.fake.spawned)
      expect(spawned?.env.SELF).toBe("port 4100")
    }),
  )

  it.scoped("hooks get the env files: those of a run, and those of a start that could not spawn", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const file = nodePath.join(h.dir, ".env")
      fs.writeFileSync(file, "FROM_FILE=1\n")
      yield* h.fake.failNext("no such file")
      const def = definition("web", {
        env_file: [{ path: file, optional: false }],
        hooks: { on_fail: "notify fail" },
      })
      expect((yield* h.sup.start(def))._tag).toBe("StartFailed")
      const [hook] = yield* awaitHooks(h, 1)
      expect(hook?.env).toMatchObject({ FROM_FILE: "1", MODE: "test", SUPERVISOR_DAEMON_ID: "app/web" })
    }),
  )

  it.scoped("reads the files again at each start", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const file = nodePath.join(h.dir, ".env")
      fs.writeFileSync(file, "GREETING=hello\n")
      const def = definition("web", { env_file: [{ path: file, optional: false }] })
      yield* startReady(h.sup, def)
      yield* h.sup.stop("app/web")
      fs.writeFileSync(file, "GREETING=changed\n")
      yield* startReady(h.sup, def)
      const spawned = yield* Ref.get(h.fake.spawned)
      expect(spawned.map((s) => s.env.GREETING)).toEqual(["hello", "changed"])
    }),
  )

  it.scoped("a file gone or broken since the configuration loaded: the start fails naming it", () =>
    Effect.gen(function* () {
      const h = yield* makeHarness()
      const missing = nodePath.join(h.dir, "gone.env")
      const gone = yield* h.sup.start(definition("web", { env_file: [{ path: missing, optional: false }] }))
      expect(gone).toMatchObject({ _tag: "StartFailed" })
      expect(gone._tag === "StartFailed" && gone.message).toBe(
        `cannot start daemon app/web: env file ${missing} does not exist`,
      )
      const broken = nodePath.join(h.dir, "broken.env")
      fs.writeFileSync(broken, "OK=1\nNOT A LINE\n")
      const bad = yield* h.sup.start(definition("api", { env_file: [{ path: broken, optional: false }] }))
      expect(bad._tag === "StartFailed" && bad.message).toBe(
        `cannot start daemon app/api: ${broken}:2: expected "=" after NOT: write NOT=value`,
      )
      expect(yield* Ref.get(h.fake.spawned)).toEqual([])
    }),
  )
})
