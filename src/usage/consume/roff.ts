/**
 * Escaping for man(7) roff source. Help texts come from spec authors who write plain text, so
 * anything roff would interpret must be neutralised: a backslash starts an escape, a line
 * starting with `.` or `'` is a request, and a `-` in an option name must be `\-` so it renders
 * as a real minus (copy-pasteable) rather than a hyphen.
 */

/** Escapes one line's worth of characters; `allDashes` for code-like text (flags, commands, schemas). */
const escapeChars = (text: string, allDashes: boolean): string => {
  const backslashes = text.replace(/\\/g, "\\e")
  return allDashes
    ? backslashes.replace(/-/g, "\\-")
    : // In prose only option-like dashes (`--json`, `-f`): hyphenated words keep their hyphen.
      backslashes.replace(
        /(^|[\s([{"'`=,/])(-+)(?=\w)/g,
        (_m, lead: string, dashes: string) => `${lead}${"\\-".repeat(dashes.length)}`,
      )
}

/** Protects a line that would otherwise be read as a request or start with a break. */
const protectLine = (line: string): string => (/^[.']/.test(line) ? `\\&${line}` : line)

/**
 * Prose as roff text lines: every line escaped and protected, leading blanks dropped (they
 * would force a break), blank lines turned into `.sp` (paragraph space without leaving the
 * current indentation, unlike `.PP`).
 */
export const prose = (text: string): string =>
  text
    .trim()
    .split(/\r?\n/)
    .map((line) => line.trim())
    .map((line) => (line === "" ? ".sp" : protectLine(escapeChars(line, false))))
    .join("\n")

/** Inline code-like text (a flag, a command line, a value): every dash escaped. */
export const literal = (text: string): string => escapeChars(text, true).replace(/\n/g, " ")

/** Bold inline text, with the font restored after it; `\%` keeps a name from being hyphenated. */
export const bold = (text: string): string => `\\fB\\%${literal(text)}\\fR`

/** Italic inline text (placeholders). */
export const italic = (text: string): string => `\\fI\\%${literal(text)}\\fR`

/**
 * A verbatim block (`.nf`/`.fi`): lines keep their leading spaces (no-fill mode honours
 * them), only escapes and line-start requests are neutralised. `.RS` without an argument
 * indents to the body of the surrounding tagged paragraph.
 */
export const verbatim = (text: string): string =>
  [
    ".RS",
    ".nf",
    ...text
      .replace(/\n$/, "")
      .split(/\r?\n/)
      .map((line) => protectLine(escapeChars(line, true))),
    ".fi",
    ".RE",
  ].join("\n")

/** A macro argument in double quotes (a `"` inside becomes `\(dq`). */
export const macroArg = (text: string): string =>
  `"${escapeChars(text, true).replace(/"/g, "\\(dq").replace(/\n/g, " ")}"`
