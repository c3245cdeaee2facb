/**
 * ANSI escape sequences: CSI (`ESC [ … final`, colours and cursor moves), OSC
 * (`ESC ] … BEL` or `ESC ] … ESC \`, titles and hyperlinks) and two-byte escapes.
 */
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]/g

/** The text without ANSI escape sequences. */
export const stripAnsi = (text: string): string =>
  text.includes("\x1b") || text.includes("\x9b") ? text.replace(ANSI, "") : text
