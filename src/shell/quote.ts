/** A word for a POSIX shell, always single-quoted (a `'` inside becomes `'\''`). */
export const posixQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`

/** A word for a POSIX shell as a person would type it: bare when every character is safe, else quoted. */
export const shellWord = (s: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : posixQuote(s))
