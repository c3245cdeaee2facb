import { Deferred, type Duration, Effect, Layer, Option, Ref } from "effect"
import type { ProcessTreeNode } from "../domain/ProcessTree.js"
import {
  type ExitStatus,
  type ProcessHandle,
  ProcessService,
  type ProcessServiceShape,
  SpawnError,
  type SpawnRequest,
} from "../process/ProcessService.js"

/** A process of the fake: it never touches the OS and exits only when told to (or signalled). */
export interface FakeProcess {
  readonly pid: number
  readonly startTime: string
  /** undefined for a process made with `seed` (one a previous supervisor started). */
  readonly request: SpawnRequest | undefined
  readonly exited: Deferred.Deferred<ExitStatus>
  /** Signals it ignores (SIGKILL cannot be ignored). */
  readonly ignored: Set<NodeJS.Signals>
  /** Other members of its group (children it put in the background): they end on any signal that kills. */
  readonly members: Set<number>
}

/** What the next spawn does; queued with `exitNext`, `failNext` and `ignoreNext`, consumed in order. */
type NextSpawn =
  | { readonly _tag: "Fail"; readonly message: string }
  | { readonly _tag: "Exit"; readonly status: ExitStatus; readonly after: Duration.DurationInput | undefined }
  | { readonly _tag: "Ignore"; readonly signals: ReadonlyArray<NodeJS.Signals> }

export interface FakeExit {
  readonly code?: number | null
  readonly signal?: string | null
}

export interface SignalSent {
  readonly pgid: number
  readonly signal: NodeJS.Signals
}

export interface FakeProcessService {
  readonly layer: Layer.Layer<ProcessService>
  readonly service: ProcessServiceShape
  /** Every spawn request, in order, including failed ones. */
  readonly spawned: Ref.Ref<ReadonlyArray<SpawnRequest>>
  /** Every signal sent through `signalGroup` or `stop`, in order. */
  readonly signals: Ref.Ref<ReadonlyArray<SignalSent>>
  /** Every process ever started or seeded, in order. */
  readonly processes: Effect.Effect<ReadonlyArray<FakeProcess>>
  /** The pids of processes that have not exited. */
  readonly running: Effect.Effect<ReadonlyArray<number>>
  /** Makes a running process exit (code 0 unless told otherwise). No-op when it already exited. */
  readonly exit: (pid: number, status?: FakeExit) => Effect.Effect<void>
  /** The next spawned process exits with `status`: at once, or `after` a delay on the Clock (TestClock). */
  readonly exitNext: (
    status?: FakeExit,
    options?: { readonly after?: Duration.DurationInput },
  ) => Effect.Effect<void>
  /** The next spawn fails with a SpawnError carrying `message`. */
  readonly failNext: (message?: string) => Effect.Effect<void>
  /** The next spawned process ignores these signals, so `stop` has to escalate to SIGKILL. */
  readonly ignoreNext: (...signals: ReadonlyArray<NodeJS.Signals>) => Effect.Effect<void>
  /** Makes a running process ignore a signal. */
  readonly ignore: (pid: number, signal: NodeJS.Signals) => Effect.Effect<void>
  /** Gives a running process a child in its group, which outlives it until a signal that kills. */
  readonly leaveChild: (pid: number) => Effect.Effect<void>
  /** Creates a running process without a spawn request: what a restarted supervisor finds to adopt. */
  readonly seed: () => Effect.Effect<FakeProcess>
}

/** Signals whose default action does not end a process. */
const HARMLESS: ReadonlySet<NodeJS.Signals> = new Set<NodeJS.Signals>([
  "SIGCHLD",
  "SIGCONT",
  "SIGURG",
  "SIGWINCH",
  "SIGSTOP",
  "SIGTSTP",
  "SIGTTIN",
  "SIGTTOU",
])

const toStatus = (status: FakeExit | undefined): ExitStatus => ({
  code: status?.code ?? (status?.signal ? null : 0),
  signal: status?.signal ?? null,
  known: true,
})

/** An adopted process is not the supervisor's child: its exit status is unknown. */
const ADOPTED_EXIT: ExitStatus = { code: null, signal: null, known: false }

/**
 * A ProcessService for unit tests of its callers. Time-dependent behaviour (`stop` timeouts,
 * delayed exits) runs on the Clock, so TestClock drives it.
 */
export const makeFakeProcessService = (options?: {
  readonly firstPid?: number
}): Effect.Effect<FakeProcessService> =>
  Effect.gen(function* () {
    const spawned = yield* Ref.make<ReadonlyArray<SpawnRequest>>([])
    const signals = yield* Ref.make<ReadonlyArray<SignalSent>>([])
    const all = yield* Ref.make<ReadonlyArray<FakeProcess>>([])
    const next = yield* Ref.make<ReadonlyArray<NextSpawn>>([])
    const nextPid = yield* Ref.make(options?.firstPid ?? 10_000)

    const find = (pid: number) =>
      Effect.map(Ref.get(all), (ps) => Option.fromNullable(ps.find((p) => p.pid === pid)))
    const isRunning = (p: FakeProcess) => Effect.map(Deferred.isDone(p.exited), (done) => !done)

    const create = (request: SpawnRequest | undefined) =>
      Effect.gen(function* () {
        const pid = yield* Ref.getAndUpdate(nextPid, (n) => n + 1)
        const fake: FakeProcess = {
          pid,
          startTime: String(pid * 100),
          request,
          exited: yield* Deferred.make<ExitStatus>(),
          ignored: new Set(),
          members: new Set(),
        }
        yield* Ref.update(all, (ps) => [...ps, fake])
        return fake
      })

    const finish = (p: FakeProcess, status: ExitStatus) =>
      Deferred.succeed(p.exited, status).pipe(Effect.asVoid)

    const deliver = (pgid: number, signal: NodeJS.Signals) =>
      Effect.gen(function* () {
        yield* Ref.update(signals, (ss) => [...ss, { pgid, signal }])
        const found = yield* find(pgid)
        if (Option.isNone(found)) return
        const p = found.value
        if (!HARMLESS.has(signal)) p.members.clear()
        if (HARMLESS.has(signal) || (signal !== "SIGKILL" && p.ignored.has(signal))) return
        yield* finish(p, { code: null, signal, known: true })
      })

    const handleOf = (p: FakeProcess, adopted: boolean): ProcessHandle => ({
      pid: p.pid,
      startTime: p.startTime,
      exit: adopted ? Effect.as(Deferred.await(p.exited), ADOPTED_EXIT) : Deferred.await(p.exited),
    })

    const spawn = (req: SpawnRequest) =>
      Effect.gen(function* () {
        yield* Ref.update(spawned, (rs) => [...rs, req])
        const behaviour = yield* Ref.modify(next, (queue) => [queue[0], queue.slice(1)] as const)
        if (behaviour?._tag === "Fail")
          return yield* new SpawnError({
            id: req.id,
            command: req.command,
            message: `cannot start daemon ${req.id}: ${behaviour.message}`,
          })
        const p = yield* create(req)
        if (behaviour?._tag === "Ignore") for (const signal of behaviour.signals) p.ignored.add(signal)
        if (behaviour?._tag === "Exit") {
          if (behaviour.after === undefined) yield* finish(p, behaviour.status)
          else yield* Effect.forkDaemon(Effect.delay(finish(p, behaviour.status), behaviour.after))
        }
        return handleOf(p, false)
      })

    const isAlive = (pid: number, startTime: string) =>
      Effect.flatMap(find(pid), (found) =>
        Option.isSome(found) && found.value.startTime === startTime
          ? isRunning(found.value)
          : Effect.succeed(false),
      )

    const adopt = (pid: number, startTime: string) =>
      Effect.gen(function* () {
        if (!(yield* isAlive(pid, startTime))) return Option.none()
        const p = yield* find(pid)
        return Option.map(p, (found) => handleOf(found, true))
      })

    const groupMembers = (pgid: number) =>
      Effect.gen(function* () {
        const found = yield* find(pgid)
        if (Option.isNone(found)) return []
        const leader = (yield* isRunning(found.value)) ? [pgid] : []
        return [...leader, ...found.value.members]
      })

    const stop = (handle: ProcessHandle, signal: NodeJS.Signals, timeout: Duration.DurationInput) =>
      Effect.gen(function* () {
        yield* deliver(handle.pid, signal)
        const first = yield* handle.exit.pipe(Effect.interruptible, Effect.timeoutOption(timeout))
        if (Option.isSome(first)) return first.value
        yield* deliver(handle.pid, "SIGKILL")
        return yield* handle.exit
      })

    const tree = (pid: number) =>
      Effect.gen(function* () {
        const found = yield* find(pid)
        if (Option.isNone(found) || !(yield* isRunning(found.value))) return Option.none()
        const node: ProcessTreeNode = {
          pid,
          name: found.value.request?.shell[0] ?? "sh",
          exe: "",
          cpu_percent: 0,
          memory_bytes: 0,
          virtual_memory_bytes: 0,
          uptime_secs: 0,
          thread_count: 1,
          status: "Sleep",
          children: [],
        }
        return Option.some(node)
      })

    const service: ProcessServiceShape = {
      spawn,
      adopt,
      isAlive,
      signalGroup: deliver,
      groupMembers,
      stop,
      tree,
    }

    const enqueue = (behaviour: NextSpawn) => Ref.update(next, (queue) => [...queue, behaviour])
    const processes = Ref.get(all)
    return {
      layer: Layer.succeed(ProcessService, service),
      service,
      spawned,
      signals,
      processes,
      running: Effect.flatMap(processes, (ps) =>
        Effect.filter(ps, isRunning).pipe(Effect.map((live) => live.map((p) => p.pid))),
      ),
      exit: (pid, status) =>
        Effect.flatMap(find(pid), (found) =>
          Option.isSome(found) ? finish(found.value, toStatus(status)) : Effect.void,
        ),
      exitNext: (status, exitOptions) =>
        enqueue({ _tag: "Exit", status: toStatus(status), after: exitOptions?.after }),
      failNext: (message = "spawn failed (fake)") => enqueue({ _tag: "Fail", message }),
      ignoreNext: (...ignored) => enqueue({ _tag: "Ignore", signals: ignored }),
      ignore: (pid, signal) =>
        Effect.flatMap(find(pid), (found) =>
          Effect.sync(() => {
            if (Option.isSome(found)) found.value.ignored.add(signal)
          }),
        ),
      leaveChild: (pid) =>
        Effect.flatMap(find(pid), (found) =>
          Effect.sync(() => {
            if (Option.isSome(found)) found.value.members.add(pid + 500_000)
          }),
        ),
      seed: () => create(undefined),
    } satisfies FakeProcessService
  })
