import { Effect, Layer, Option, Ref } from "effect"
import { type HookCommand, HookRunner } from "../supervisor/hooks/HookRunner.js"
import { PortAvailability } from "../supervisor/ports/availability.js"
import { ReadinessProbes, type ReadinessProbesShape } from "../supervisor/readiness/index.js"

/** Probes for tests that give none: a test that uses one without faking it fails loudly. */
export const unfakedProbes: ReadinessProbesShape = {
  http: () => Effect.dieMessage("this test uses ready_http without fake probes"),
  port: () => Effect.dieMessage("this test uses ready_port without fake probes"),
  cmd: () => Effect.dieMessage("this test uses ready_cmd without fake probes"),
}

export const probesLayer = (probes: ReadinessProbesShape = unfakedProbes) =>
  Layer.succeed(ReadinessProbes, probes)

/** A hook runner that records every hook and "exits 0" at once. */
export const makeRecordingHookRunner = Effect.gen(function* () {
  const ran = yield* Ref.make<ReadonlyArray<HookCommand>>([])
  const layer = Layer.succeed(HookRunner, {
    run: (command) =>
      Ref.update(ran, (all) => [...all, command]).pipe(
        Effect.as({ _tag: "Exited", code: 0, signal: null } as const),
      ),
  })
  return { layer, hooks: Ref.get(ran) }
})

/** Port checks that report `busy` ports as in use (held by `holders`), every other port free. */
export const portsLayer = (
  busy: ReadonlyArray<number> = [],
  holders: Readonly<Record<number, { readonly pid: number; readonly name: string }>> = {},
) => {
  const taken = new Set(busy)
  return Layer.succeed(PortAvailability, {
    check: (port) => Effect.succeed(taken.has(port) ? { free: false, reason: "in-use" } : { free: true }),
    holder: (port) => Effect.succeed(Option.fromNullable(holders[port])),
  })
}
