import type * as http from "node:http"
import { type Context, Effect, Layer } from "effect"

/**
 * `SUPERVISOR_TRACE=1`: where the supervisor's time goes, for bench/start-trace.mjs. The services
 * the composition root names are wrapped so that each call of an Effect-returning member is timed;
 * half a second after the last call of a burst (a start of 50, say), one line goes to the
 * supervisor's log: `trace {"at": <epoch ms of the first call>, "phases": [...]}`, each phase a
 * member with its count, the sum of its durations and its first start and last end (ms after
 * `at`). Off (the default), nothing is wrapped and nothing runs.
 */
export const traceEnabled = (env: Readonly<Record<string, string | undefined>>) =>
  env.SUPERVISOR_TRACE === "1"

interface Mark {
  readonly name: string
  readonly start: number
  readonly end: number
}

const makeRecorder = (write: (line: string) => void) => {
  let marks: Array<Mark> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    const at = Math.min(...marks.map((m) => m.start))
    const phases = new Map<string, { count: number; sum: number; first: number; last: number }>()
    for (const m of marks) {
      const p = phases.get(m.name) ?? { count: 0, sum: 0, first: m.start, last: m.end }
      p.count++
      p.sum += m.end - m.start
      p.first = Math.min(p.first, m.start)
      p.last = Math.max(p.last, m.end)
      phases.set(m.name, p)
    }
    const round = (x: number) => Math.round(x * 10) / 10
    write(
      `trace ${JSON.stringify({
        at: round(performance.timeOrigin + at),
        phases: [...phases].map(([name, p]) => ({
          name,
          count: p.count,
          sum: round(p.sum),
          first: round(p.first - at),
          last: round(p.last - at),
        })),
      })}\n`,
    )
    marks = []
  }
  return (name: string, start: number, end: number) => {
    marks.push({ name, start, end })
    clearTimeout(timer)
    timer = setTimeout(flush, 500)
  }
}

/** The tracing of one supervisor: layer wrappers and the HTTP server's hook. */
export const makeTrace = (
  enabled: boolean,
  write: (line: string) => void = (l) => process.stderr.write(l),
) => {
  const mark = enabled ? makeRecorder(write) : undefined
  const timed = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
    Effect.suspend(() => {
      const start = performance.now()
      return Effect.ensuring(
        effect,
        Effect.sync(() => mark?.(name, start, performance.now())),
      )
    })
  const wrap = <S extends object>(prefix: string, service: S): S => {
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(service)) {
      const name = `${prefix}.${key}`
      out[key] =
        typeof value === "function"
          ? (...args: Array<unknown>) => {
              const r: unknown = value(...args)
              return Effect.isEffect(r) ? timed(name, r) : r
            }
          : Effect.isEffect(value)
            ? timed(name, value)
            : value
    }
    return out as S
  }
  return {
    /** `layer` with its service's members timed (when tracing). */
    service:
      <I, S extends object>(tag: Context.Tag<I, S>, prefix: string) =>
      <E, R>(layer: Layer.Layer<I, E, R>): Layer.Layer<I, E, R> =>
        mark === undefined
          ? layer
          : Layer.effect(
              tag,
              Effect.map(tag, (s) => wrap(prefix, s)),
            ).pipe(Layer.provide(layer)),
    /** Times each request of `server` from its arrival to the end of its answer (when tracing). */
    server: <T extends http.Server>(server: T): T => {
      if (mark !== undefined)
        server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
          const start = performance.now()
          const name = `http ${req.method} ${(req.url ?? "").split("?")[0]}`
          res.once("finish", () => mark(name, start, performance.now()))
        })
      return server
    },
  }
}

export type Trace = ReturnType<typeof makeTrace>
