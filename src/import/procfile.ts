// A Procfile (`name: command` per line, as foreman and Heroku read it) as supervisor daemons.
import { Collector, type Imported, ImportFailed } from "./model.js"

const LINE = /^([A-Za-z0-9_.-]+)\s*:\s?(.*)$/

/** The daemons of a Procfile's text; `file` names it in errors. */
export const importProcfile = (text: string, file: string): Imported | ImportFailed => {
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
    if (/\$\{?PORT\b/.test(command))
      c.warn(
        key,
        "the command reads $PORT, which Procfile runners set: set it in the daemon's env (or use {{ daemons.<name>.port }} with port)",
      )
    c.add(c.name(m[1]!, key), [["run", command]])
  }
  if (c.daemons.length === 0)
    return new ImportFailed({
      file,
      problem: "no process found",
      hint: 'a Procfile has one "name: command" line per process, e.g. web: node server.js',
    })
  return c.result()
}
