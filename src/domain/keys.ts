// Named keys as tmux names them (`send-keys`): what `supervisor send --keys`, the API's input and
// the MCP tool type into a daemon (docs/attach.md). The bytes are an xterm's in normal mode.
import { Either } from "effect"

const ESC = "\u001b"

const NAMED: Readonly<Record<string, string>> = {
  Enter: "\r",
  Tab: "\t",
  BTab: `${ESC}[Z`,
  Escape: ESC,
  Space: " ",
  BSpace: "\u007f",
  Up: `${ESC}[A`,
  Down: `${ESC}[B`,
  Right: `${ESC}[C`,
  Left: `${ESC}[D`,
  Home: `${ESC}[H`,
  End: `${ESC}[F`,
  PageUp: `${ESC}[5~`,
  PPage: `${ESC}[5~`,
  PageDown: `${ESC}[6~`,
  NPage: `${ESC}[6~`,
  Delete: `${ESC}[3~`,
  DC: `${ESC}[3~`,
  Insert: `${ESC}[2~`,
  IC: `${ESC}[2~`,
  F1: `${ESC}OP`,
  F2: `${ESC}OQ`,
  F3: `${ESC}OR`,
  F4: `${ESC}OS`,
  F5: `${ESC}[15~`,
  F6: `${ESC}[17~`,
  F7: `${ESC}[18~`,
  F8: `${ESC}[19~`,
  F9: `${ESC}[20~`,
  F10: `${ESC}[21~`,
  F11: `${ESC}[23~`,
  F12: `${ESC}[24~`,
}

/** The names `keyText` knows, for its error message and the docs. */
export const KEY_NAMES: ReadonlyArray<string> = Object.keys(NAMED)

/** A control key: `C-c`, `^c`, `C-[`, `C-Space`, `C-?`. */
const control = (key: string): string | undefined => {
  if (key === "Space" || key === "@" || key === " ") return "\u0000"
  if (key === "?") return "\u007f"
  if (key.length !== 1) return undefined
  const code = key.toUpperCase().charCodeAt(0)
  return code >= 0x40 && code <= 0x5f ? String.fromCharCode(code & 0x1f) : undefined
}

/**
 * The text a key name types: a name above, `C-x`/`^x` (control), `M-x` (meta: Escape first), or a
 * single character as itself. `Enter` is a carriage return on a terminal, a newline on a pipe.
 */
export const keyText = (name: string, terminal: boolean): Either.Either<string, string> => {
  if (name === "Enter" && !terminal) return Either.right("\n")
  const named = NAMED[name]
  if (named !== undefined) return Either.right(named)
  if (name.startsWith("M-") && name.length > 2)
    return Either.map(keyText(name.slice(2), terminal), (t) => ESC + t)
  const ctrl = name.startsWith("C-")
    ? name.slice(2)
    : name.startsWith("^") && name.length === 2
      ? name.slice(1)
      : undefined
  if (ctrl !== undefined) {
    const text = control(ctrl)
    if (text !== undefined) return Either.right(text)
  } else if ([...name].length === 1) return Either.right(name)
  return Either.left(
    `unknown key ${JSON.stringify(name)}: name a key as tmux does (${KEY_NAMES.filter((k) => !["PPage", "NPage", "DC", "IC"].includes(k)).join(", ")}), C-x for a control key, M-x for a meta key, or one character`,
  )
}

/** What `{ text, keys, enter }` types: the text, then each key, then Enter. */
export const inputText = (
  input: {
    readonly text?: string | undefined
    readonly keys?: ReadonlyArray<string> | undefined
    readonly enter?: boolean | undefined
  },
  terminal: boolean,
): Either.Either<string, string> => {
  let out = input.text ?? ""
  for (const key of [...(input.keys ?? []), ...(input.enter === true ? ["Enter"] : [])]) {
    const t = keyText(key, terminal)
    if (Either.isLeft(t)) return t
    out += t.right
  }
  return Either.right(out)
}
