// A Procfile (`name: command` per line, as foreman and Heroku read it) as supervisor daemons.
import { Collector, type Imported, ImportFailed } from "./model.js"

const LINE = /^([A-Za-z0-9_.-]+)\s*:\s?(.*)$/
/** `$PORT` or `${PORT}` in a command. */
const READS_PORT = /\$(PORT\b|\{PORT\})/
/** foreman's convention: the n-th process (from 0, in file order) gets PORT = 5000 + 100 n. */
export const procfilePort = (index: number): number => 5000 + 100 * index

/**
 * The daemons of a Procfile's text; `file` names it in errors. `envFile`: the `.env` beside it
 * (as the output file reaches it), which foreman and Heroku load for every process.
 */
export const importProcfile = (text: string, file: string, envFile?: string): Imported | ImportFailed => {
  const c = new Collector()
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim()
    const key = `line ${i + 1}`
    if (line === "" || line.startsWith("#")) continue
    const m = LINE.exec(line)
    if (m === null) {
      c.warn(key, `not a "name: command" line: not imported (${JSON.stringify(line)})`)
      continue
    }
    const command = m[2]!.trim()
    if (command === "") {
      c.warn(key, `process ${JSON.stringify(m[1])} has no command: not imported`)
      continue
    }
    // A runner sets PORT for every process; the supervisor sets it for a daemon with `port`.
    const port = READS_PORT.test(command) ? procfilePort(c.daemons.length) : undefined
    c.add(c.name(m[1]!, key), [
      ["run", command],
      ["port", port],
      ["env_file", envFile],
    ])
  }
  if (c.daemons.length === 0)
    return new ImportFailed({
      file,
      problem: "no process found",
      hint: 'a Procfile has one "name: command" line per process, e.g. web: node server.js',
    })
  return c.result()
}
