// `supervisor start server.js`, as PM2 users type it: the daemon is not found, and the message
// says how to run that file as a daemon (`supervisor run server -- node server.js`).
import { accessSync, constants, statSync } from "node:fs"
import * as nodePath from "node:path"

/** The interpreter of a script, by its extension. */
const INTERPRETERS: Readonly<Record<string, string>> = {
  ".js": "node",
  ".mjs": "node",
  ".cjs": "node",
  ".ts": "npx tsx",
  ".mts": "npx tsx",
  ".cts": "npx tsx",
  ".py": "python3",
  ".rb": "ruby",
  ".pl": "perl",
  ".php": "php",
  ".sh": "sh",
  ".bash": "bash",
}

const isFile = (path: string) => {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

const isExecutable = (path: string) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** A daemon ID from a file's base name: `server.js` → `server`, `my app.py` → `my-app`. */
export const idFromFile = (file: string): string => {
  const base = nodePath.basename(file, nodePath.extname(file))
  const id = base.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "")
  return id === "" ? "app" : id
}

/**
 * The command that runs `typed` as a file (`node server.js`, `./run.sh` when it is executable),
 * or undefined when it looks like no file: no script extension, and no file of that name in `cwd`.
 */
export const fileCommand = (typed: string, cwd: string): string | undefined => {
  const path = nodePath.resolve(cwd, typed)
  const exists = isFile(path)
  const ext = nodePath.extname(typed).toLowerCase()
  const interpreter = Object.hasOwn(INTERPRETERS, ext) ? INTERPRETERS[ext] : undefined
  const direct = typed.includes("/") ? typed : `./${typed}`
  // an executable file runs as it is (its #! line picks the interpreter)
  if (exists && isExecutable(path)) return direct
  if (interpreter !== undefined) return `${interpreter} ${typed}`
  return undefined
}

/** What to tell a user who named a file where a daemon ID goes, or undefined. */
export const fileHint = (typed: string, cwd: string): string | undefined => {
  const command = fileCommand(typed, cwd)
  if (command === undefined) return undefined
  const id = idFromFile(typed)
  return `${typed} is a file, not a daemon: run it as one with \`supervisor run ${id} -- ${command}\`, or declare it in supervisor.toml ([daemons.${id}] run = ${JSON.stringify(command)})`
}
