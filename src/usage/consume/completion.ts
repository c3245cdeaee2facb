import type { Spec } from "../model.js"
import { bashCompletion } from "./completion-bash.js"
import { fishCompletion } from "./completion-fish.js"
import { zshCompletion } from "./completion-zsh.js"

/** The shells a completion script can be generated for. */
export type Shell = "bash" | "zsh" | "fish"

/**
 * A completion script for `shell`: subcommands (aliases accepted, hidden ones not offered),
 * flags, the choices of value flags (a selector's output names, with their help where the
 * shell shows descriptions) and the choices of positional arguments.
 */
export const completionScript = (spec: Spec, shell: Shell): string => {
  switch (shell) {
    case "bash":
      return bashCompletion(spec)
    case "zsh":
      return zshCompletion(spec)
    case "fish":
      return fishCompletion(spec)
  }
}
