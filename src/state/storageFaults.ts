import * as fs from "node:fs"
import * as nodePath from "node:path"

// What a failed write of the supervisor's storage is (its code), how to fix it, and the faults the
// test suite injects (SUPERVISOR_FAULTS_FILE). Pure functions: the record of what fails now is the
// StorageHealth service (StorageHealth.ts).

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

/** The error code of a failed write (a LogStoreError carries the node error as its cause). */
export const codeOf = (error: unknown): string => {
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
