import { Context, Effect, FiberSet, Layer, Ref } from "effect"
import { SupervisorConfig } from "../config/SupervisorConfig.js"
import { LogStore } from "../logs/LogStore.js"
import { ProcessService } from "../process/ProcessService.js"
import { StateStore } from "../state/StateStore.js"
import { StorageHealth } from "../state/StorageHealth.js"
import { adoptPrevious } from "./adopt.js"
import { DaemonCommand } from "./daemon/commands.js"
import { daemonLifecycle } from "./daemon/lifecycle.js"
import { followOptionsOf } from "./logPolicy.js"
import { retainLogs } from "./logRetention.js"
import { makeMailboxes } from "./mailboxes.js"
import { makeDaemonContext } from "./makeContext.js"
import { makeRegistry } from "./registry.js"
import { makeSupervisorView, type SupervisorViewShape } from "./SupervisorView.js"
import { makeSupervisorCommands, type SupervisorCommandsShape } from "./supervisorCommands.js"

export type { StartOptions } from "./supervisorCommands.js"

/** The supervisor: its commands (sent to the daemons' mailboxes) and its read-side view. */
export interface SupervisorShape extends SupervisorCommandsShape, SupervisorViewShape {}

export class Supervisor extends Context.Tag("supervisor/Supervisor")<Supervisor, SupervisorShape>() {}

const makeSupervisor = Effect.gen(function* () {
  const processes = yield* ProcessService
  const logs = yield* LogStore
  const config = yield* SupervisorConfig
  const state = yield* StateStore
  const health = yield* StorageHealth
  const registry = yield* makeRegistry(state)
  const hookFibers = yield* FiberSet.make<unknown, never>()
  const shuttingDown = yield* Ref.make(false)
  const detaching = yield* Ref.make(false)
  const ctx = yield* makeDaemonContext({ registry, hookFibers, shuttingDown, detaching })
  const mailboxes = yield* makeMailboxes((def, queue, adopted, retire) =>
    daemonLifecycle(ctx, def, queue, adopted, retire),
  )
  const commands = makeSupervisorCommands({ mailboxes, registry, state, hookFibers, shuttingDown, detaching })
  const supervisor: SupervisorShape = {
    ...commands,
    ...makeSupervisorView({ registry, state, processes, ctx, health }),
  }

  yield* adoptPrevious({
    state,
    processes,
    logs,
    registry,
    adopt: (def, handle, attempt) => mailboxes.adopt(def, { handle, attempt }),
    resume: (def, attempt, message) =>
      mailboxes.send(
        def,
        DaemonCommand.Resume({ attempt, exit: { code: null, signal: null, known: false }, message }),
      ),
    stop: commands.stop,
    followOptions: (def) => followOptionsOf(def.config, config.settings),
    policy: config.settings.supervisor.orphan_policy,
  })
  yield* Effect.forkScoped(retainLogs(logs, registry, config, processes))
  return supervisor
})

/**
 * The supervisor service. Building it adopts the daemons a previous supervisor left running;
 * closing it stops every daemon, dependents first.
 */
export const SupervisorLive = Layer.scoped(
  Supervisor,
  Effect.gen(function* () {
    const supervisor = yield* makeSupervisor
    // Registered after the mailboxes' own scope, so it runs first: an orderly stop.
    yield* Effect.addFinalizer(() => supervisor.stopAll)
    return supervisor
  }),
)
