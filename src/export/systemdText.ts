// How values are written on the lines of a systemd unit file (systemd.syntax(7), systemd.service(5)).

/** A value inside double quotes on an Exec/Environment line: `%` and `$` doubled, C escapes. */
export const quoted = (s: string): string =>
  `"${s
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\n/g, "\\n")
    .replace(/%/g, "%%")
    .replace(/\$/g, "$$$$")}"`

/** A path or plain value of a unit file line: only `%` is special. */
export const plain = (s: string): string => s.replace(/%/g, "%%")

export const shell = (command: string): string => `/bin/sh -c ${quoted(command)}`
