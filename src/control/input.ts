// The Input and Resize commands (docs/attach.md): bytes typed into a running daemon through its
// input pipe, framed for a `pty = true` daemon's terminal holder, plain for `stdin = "pipe"`.
import { Effect, Either, Option } from "effect"
import type { Input, Resize } from "../domain/Command.js"
import { InputRefused, UsageError } from "../domain/CommandErrors.js"
import { inputText } from "../domain/keys.js"
import type { LogStoreShape } from "../logs/LogStore.js"
import { inputPath } from "../process/fifo.js"
import { pipePieces, sizeFrame, typedFrames, writePieces } from "../process/inputPipe.js"
import type { SupervisorShape } from "../supervisor/Supervisor.js"
import { type SelectDeps, selectDaemons } from "./selectFor.js"

export interface InputDeps extends SelectDeps {
  readonly sup: Pick<SupervisorShape, "get">
  readonly logs: Pick<LogStoreShape, "paths">
}

/** The running daemon `id` names, with how it reads input and where its pipe is. */
const target = (deps: InputDeps, c: Input | Resize) =>
  Effect.gen(function* () {
    // a qualified ID the supervisor knows needs no selection (an attached terminal's every key)
    const known = c.id.includes("/") ? yield* Effect.option(deps.sup.get(c.id)) : Option.none()
    const id = Option.isSome(known)
      ? c.id
      : ((yield* selectDaemons(
          deps,
          {
            ids: [c.id],
            all: false,
            ...(c._tag === "Input" && c.from !== undefined ? { from: c.from } : {}),
          },
          "configured",
        )).ids[0] ?? c.id)
    // a configured daemon the supervisor has not run yet is not running, not unknown
    const r = Option.isSome(known)
      ? known.value
      : yield* deps.sup.get(id).pipe(
          Effect.catchTag("DaemonNotFound", () =>
            Effect.fail(
              new InputRefused({
                id,
                message: `daemon ${id} is not running (it has not been started); start it with: supervisor start ${id}`,
              }),
            ),
          ),
        )
    const mode = r.def.config.pty ? "terminal" : r.def.config.stdin === "pipe" ? "pipe" : undefined
    if (mode === undefined)
      return yield* new InputRefused({
        id,
        message: `daemon ${id} reads no input: set pty = true (a terminal, for attach and send) or stdin = "pipe" (send only) in its [daemons.${r.def.id.name}] table, then restart it`,
      })
    if (r.handle === null)
      return yield* new InputRefused({
        id,
        message: `daemon ${id} is not running (${r.status.type}); start it with: supervisor start ${id}`,
      })
    const paths = yield* deps.logs
      .paths(id)
      .pipe(Effect.mapError((e) => new InputRefused({ id, message: `daemon ${id}: ${e.message}` })))
    return { id, mode, path: inputPath(paths.rawPath) } as const
  })

const refused = (id: string) => (e: { readonly message: string }) =>
  new InputRefused({ id, message: `cannot type into daemon ${id}: ${e.message}` })

export const makeInput = (deps: InputDeps) => ({
  input: (c: Input) =>
    Effect.gen(function* () {
      const t = yield* target(deps, c)
      const typed = inputText(c, t.mode === "terminal")
      if (Either.isLeft(typed)) return yield* new UsageError({ message: typed.left })
      const text = Buffer.from(typed.right)
      const bytes = c.data === undefined ? text : Buffer.concat([c.data, text])
      if (bytes.length > 0)
        yield* writePieces(t.path, t.mode === "terminal" ? typedFrames(bytes) : pipePieces(bytes)).pipe(
          Effect.mapError(refused(t.id)),
        )
      return { id: t.id, bytes: bytes.length }
    }),
  resize: (c: Resize) =>
    Effect.gen(function* () {
      const t = yield* target(deps, c)
      if (t.mode !== "terminal")
        return yield* new InputRefused({
          id: t.id,
          message: `daemon ${t.id} has no terminal to resize (pty = true)`,
        })
      yield* writePieces(t.path, [sizeFrame(c.rows, c.cols)]).pipe(Effect.mapError(refused(t.id)))
      return { id: t.id }
    }),
})
