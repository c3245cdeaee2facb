import * as fs from "node:fs"
import * as nodePath from "node:path"

// What is wrong with the supervisor's storage (its state file, the log directory, its own log):
// failed writes are counted per file until one succeeds again, for `supervisor supervisor status`
// and the API. A module-level record rather than a service: the process's own stderr sink and
// the synchronous log writers (outside any Effect) report here too.

export type StorageArea = "state" | "logs" | "supervisor_log"

export interface StorageProblem {
  readonly area: StorageArea
  readonly file: string
  /** The error code (`ENOSPC`, `EROFS`, `EACCES`, ...), or `corrupt` for a state file set aside. */
  readonly code: string
  /** What is wrong and how to fix it, in one line. */
  readonly message: string
  /** Epoch milliseconds of the first failure. */
  readonly since: number
  /** Writes that failed since then (0 for a state file set aside at start). */
  readonly failed_writes: number
}

const problems = new Map<string, StorageProblem>()

const codeOf = (error: unknown): string => {
  // a LogStoreError carries the node error as its cause
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string") return code
    e = (e as { cause?: unknown }).cause
  }
  return "EIO"
}

/** The fix for a failed write of `file`, by error code. */
export const fixFor = (code: string, file: string): string => {
  const dir = nodePath.dirname(file)
  switch (code) {
    case "ENOSPC":
    case "EDQUOT":
      return `the disk is full: free space on the file system of ${dir}`
    case "EROFS":
      return `the file system of ${dir} is read-only: remount it read-write`
    case "EACCES":
    case "EPERM":
      return `permission denied: make ${file} and ${dir} writable by the supervisor's user (chmod, chattr -i)`
    case "EISDIR":
      return `${file} is a directory: move it away`
    default:
      return `check the file system of ${dir}`
  }
}

// Per failing file, a write that says it is writable again (the `[supervisor]` line): tried every
// second while the file fails, so that a file nobody writes to any more recovers too. The timer
// is unref'd: it never keeps the process alive.
const probes = new Map<string, (over: StorageProblem) => void>()
let timer: NodeJS.Timeout | undefined

const probeAll = (): void => {
  for (const [file, probe] of probes) {
    const known = problems.get(file)
    if (known === undefined) {
      probes.delete(file)
      continue
    }
    try {
      throwInjected(file)
      probe(known)
    } catch {
      continue // still failing: counted by the next real write
    }
    problems.delete(file)
    probes.delete(file)
  }
  if (probes.size === 0 && timer !== undefined) {
    clearInterval(timer)
    timer = undefined
  }
}

/**
 * Counts a failed write of `file`. `probe`, if given, writes the line saying that writes work again
 * (it throws while they do not): it is tried every second until it goes through.
 */
export const storageFailed = (
  area: StorageArea,
  file: string,
  error: unknown,
  probe?: (over: StorageProblem) => void,
  now = Date.now(),
): void => {
  if (probe !== undefined) {
    probes.set(file, probe)
    if (timer === undefined) {
      timer = setInterval(probeAll, 1000)
      timer.unref()
    }
  }
  const code = codeOf(error)
  const known = problems.get(file)
  const what = area === "state" ? "the state file" : area === "logs" ? "the log file" : "the supervisor log"
  problems.set(file, {
    area,
    file,
    code,
    message: `cannot write ${what} ${file} (${code}); ${fixFor(code, file)}`,
    since: known?.since ?? now,
    failed_writes: (known?.failed_writes ?? 0) + 1,
  })
}

/** A write of `file` succeeded: its problem (if any) is over, and returned (for a line saying so). */
export const storageOk = (file: string): StorageProblem | undefined => {
  if (problems.size === 0) return undefined
  const known = problems.get(file)
  if (known === undefined || known.code === "corrupt") return undefined
  problems.delete(file)
  probes.delete(file)
  return known
}

/** A state file found corrupt at start and set aside: said until the supervisor restarts. */
export const storageNote = (problem: StorageProblem): void => {
  problems.set(`${problem.file}#${problem.code}`, problem)
}

export const storageProblems = (): ReadonlyArray<StorageProblem> => [...problems.values()]

/** The problem of a daemon's log files (`<dir>/<safe path>.out`, `.idx`, ...), if any. */
export const logProblemOf = (safePath: string): StorageProblem | undefined => {
  if (problems.size === 0) return undefined
  const prefix = `${nodePath.sep}${safePath}.`
  for (const p of problems.values()) if (p.area === "logs" && p.file.includes(prefix)) return p
  return undefined
}

/** For tests: forget every problem. */
export const resetStorageProblems = (): void => {
  problems.clear()
  probes.clear()
}

/** One line saying that writes failed and work again. */
export const recoveredText = (p: StorageProblem, now = Date.now()): string =>
  `${p.failed_writes} write(s) to ${p.file} failed from ${new Date(p.since).toISOString()} to ${new Date(now).toISOString()} (${p.code}); it is writable again`

// Fault injection for the test suite (test/faults/): `SUPERVISOR_FAULTS_FILE` names a file of
// lines `<CODE> <path prefix>`; while a line is there, every supervisor write under that prefix
// fails with that code. Unset in normal use: one environment lookup per write.

const FAULTS_ENV = "SUPERVISOR_FAULTS_FILE"

/** The error an injected fault gives a write of `file`, if any. */
export const injectedFault = (file: string): NodeJS.ErrnoException | undefined => {
  const faults = process.env[FAULTS_ENV]
  if (faults === undefined || faults === "") return undefined
  let text: string
  try {
    text = fs.readFileSync(faults, "utf8")
  } catch {
    return undefined
  }
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Z]+)\s+(\S.*?)\s*$/.exec(line)
    if (m === null || !file.startsWith(m[2]!)) continue
    const error: NodeJS.ErrnoException = new Error(`${m[1]}: injected fault, write '${file}'`)
    error.code = m[1]!
    return error
  }
  return undefined
}

/** Throws the injected fault for a write of `file`, if any. */
export const throwInjected = (file: string): void => {
  const fault = injectedFault(file)
  if (fault !== undefined) throw fault
}
