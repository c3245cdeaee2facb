import { Either } from "effect"

// The key that detaches `supervisor attach` (docs/attach.md): a control key, named as tmux names
// it (`C-]`, `C-a`), whose byte the terminal sends in raw mode.

/** Ctrl-], as telnet: a byte no ordinary key sends. */
export const DEFAULT_DETACH_KEY = "C-]"

/** Control keys that are ordinary keys too: detaching on them would steal Enter, Tab or arrows. */
const ORDINARY: Readonly<Record<string, string>> = {
  I: "Tab",
  J: "Enter (a newline)",
  M: "Enter",
  "[": "Escape, which begins the arrow and function keys",
}

/**
 * The byte of a detach key named `C-x` (or `^x`, `Ctrl-x`): x one of `@`, a letter, `[`, `\`,
 * `]`, `^`, `_`, any case. A name that is no such key is refused, saying what to write.
 */
export const parseDetachKey = (name: string): Either.Either<number, string> => {
  const m = /^(?:C-|\^|ctrl-)(.)$/i.exec(name.trim())
  const key = m?.[1]?.toUpperCase()
  if (key === undefined || key < "@" || key > "_")
    return Either.left(
      `--detach-key ${JSON.stringify(name)} is not a control key: name one as C-x with x a letter or one of @ [ \\ ] ^ _ (e.g. C-a, C-q, C-])`,
    )
  const ordinary = ORDINARY[key]
  if (ordinary !== undefined)
    return Either.left(
      `--detach-key ${name} is the ${ordinary} key too: choose another, such as C-] (the default), C-a or C-q`,
    )
  return Either.right(key.charCodeAt(0) & 0x1f)
}

/** How a detach key's byte is shown to the user: `Ctrl-]`. */
export const detachKeyText = (byte: number): string => `Ctrl-${String.fromCharCode(byte | 0x40)}`
