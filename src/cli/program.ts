import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Console, Context, Effect, FiberRef, Layer } from "effect"
import { stripAnsi } from "../logs/ansi.js"
import { ExitCode, exitStatus, exitWith, isTTY } from "./output.js"
import { lazyTerminal } from "./terminal.js"

// What @effect/cli and the commands use; not NodeContext, whose command executor and worker
// modules would be evaluated at every start for nothing, nor a terminal opened before a prompt.
const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, lazyTerminal)

const plain = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? stripAnsi(a) : a))

/**
 * Our own output is coloured only on a terminal without NO_COLOR (style.ts); @effect/cli's help
 * and error texts always are: a console that drops the escapes where colour is off.
 */
const withColourRules = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.console, (console) => {
    const out = isTTY()
    const err = process.stderr.isTTY === true && !process.env.NO_COLOR
    if (out && err) return self
    return Effect.withConsole(self, {
      ...console,
      log: (...args: ReadonlyArray<unknown>) => console.log(...(out ? args : plain(args))),
      error: (...args: ReadonlyArray<unknown>) => console.error(...(err ? args : plain(args))),
    })
  })

/**
 * How the entry (src/cli/main.ts) applies an exit status to the process: for a command that
 * hands the process over to a program of its own (`supervisor supervisor run` in the foreground).
 */
export class ProcessExit extends Context.Tag("supervisor/ProcessExit")<
  ProcessExit,
  (status: number) => void
>() {}

/**
 * Runs a command's program: failures exit 1, and no stack trace reaches the user. The exit status
 * it asked for (`exitWith`) is given to `exit`, the entry's, which applies it to the process.
 */
export const runProgram = <A, E>(
  program: Effect.Effect<A, E, Layer.Layer.Success<typeof platform> | ProcessExit>,
  exit: (status: number) => void,
) =>
  program.pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.void
      const squashed = Cause.squash(cause) as { readonly _tag?: unknown } | undefined
      // The supervisor went away mid-request (it is stopping or was killed): not our bug.
      const lost = squashed?._tag === "RequestError" || squashed?._tag === "ResponseError"
      const message = lost
        ? "error: lost the connection to the supervisor (it may be stopping); check `supervisor supervisor status` and try again"
        : `error: ${Cause.pretty(cause).split("\n")[0]}\n(this is a bug in supervisor; set SUPERVISOR_DEBUG=1 for details)`
      return Console.error(message).pipe(
        Effect.zipRight(process.env.SUPERVISOR_DEBUG ? Console.error(Cause.pretty(cause)) : Effect.void),
        Effect.zipRight(exitWith(ExitCode.failure)),
      )
    }),
    withColourRules,
    Effect.zipRight(FiberRef.get(exitStatus)),
    Effect.flatMap((status) => Effect.sync(() => exit(status))),
    Effect.provideService(ProcessExit, exit),
    Effect.provide(platform),
    NodeRuntime.runMain({ disableErrorReporting: true }),
  )
