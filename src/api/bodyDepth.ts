// A request body nested deeper than any of the API's payloads is refused before it is decoded:
// decoding and describing a 5,000-deep array overflows the stack (a 500 with an empty body).

/** The API's payloads nest a few levels; 64 leaves room for any `env` or definition. */
export const MAX_BODY_DEPTH = 64

/** Whether JSON text opens more than `max` arrays and objects inside each other (strings skipped). */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}
