// A Control for unit tests of the actors that send commands (limits, watch, ...): it records every
// command it is sent and answers the few an actor sends by asking the given supervisor, as the
// real handler does (src/control/handle.ts); any other use dies, naming what was not faked.
import { Effect, Layer, Ref } from "effect"
import { Control, type ControlShape } from "../control/Control.js"
import { restartDependents } from "../control/dependents.js"
import type { CommandResult } from "../control/handle.js"
import { makeRestartsUnderway } from "../control/restarting.js"
import type { Command } from "../domain/Command.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"

export interface FakeControl {
  readonly layer: Layer.Layer<Control>
  readonly service: ControlShape
  /** Every command sent, in order. */
  readonly commands: Effect.Effect<ReadonlyArray<Command>>
}

const unfaked = (what: string) => Effect.dieMessage(`the fake Control does not do ${what}`)

/** `Kill`, `Restart`, `RestartDependents` and `Stop` of qualified IDs, answered by `sup`. */
export const makeFakeControl = (sup: SupervisorShape) =>
  Effect.gen(function* () {
    const sent = yield* Ref.make<ReadonlyArray<Command>>([])
    // no command restarts anything here: a cascade restarts every dependent it picks
    const underway = yield* makeRestartsUnderway
    const answer = (command: Command): Effect.Effect<unknown, unknown> => {
      switch (command._tag) {
        case "Kill":
          return Effect.map(sup.kill(command.id, command.reason, command.message, command.pid), (killed) => ({
            killed,
          }))
        case "Restart":
          // without if_running: each ID restarted in the order given, each awaited (no dependencies)
          if (!command.if_running)
            return Effect.forEach(command.selection.ids, (id) => sup.restart(id, undefined, command.reason))
          return Effect.as(
            Effect.forEach(command.selection.ids, (id) =>
              sup.restartIfRunning(id, command.reason, undefined, command.detail).pipe(Effect.ignore),
            ),
            [],
          )
        case "RestartDependents":
          // the real handler's choice; each dependent restarted in order, each awaited
          return restartDependents(
            {
              sup,
              underway,
              restart: (ids, reason) => Effect.forEach(ids, (id) => sup.restart(id, undefined, reason)),
            },
            command,
          )
        case "Stop":
          return Effect.forEach(command.selection.ids, (id) =>
            Effect.map(sup.stop(id, command.reason), (was_running) => ({ id, was_running, killed: false })),
          )
        default:
          return unfaked(`a ${command._tag} command`)
      }
    }
    const service: ControlShape = {
      handle: <C extends Command>(command: C) =>
        Ref.update(sent, (all) => [...all, command]).pipe(
          Effect.zipRight(answer(command)),
          // each case answers its own command's success and failure, as the real handler does
        ) as CommandResult<C>,
      listing: () => unfaked("listing"),
      entry: () => unfaked("entry"),
      listFrom: () => unfaked("listFrom"),
      resolveFrom: () => unfaked("resolveFrom"),
      reportWatchProblem: (id, problem) => sup.setWatchProblem(id, problem),
      shutdown: (mode) => (mode === "keep" ? sup.detach : Effect.as(sup.stopAll, 0)),
    }
    return { layer: Layer.succeed(Control, service), service, commands: Ref.get(sent) } satisfies FakeControl
  })
