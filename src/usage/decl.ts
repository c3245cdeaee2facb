import type { Arg, CommandAttrs, Complete, Example, Flag, Framing, Mount, PassthroughNode } from "./model.js"

export type { CommandAttrs }

/**
 * What one command of the spec declares, as written (before inheritance). Parsing produces a
 * tree of these; `flagsets.ts` splices the flags of `use`d sets in, and `resolve.ts` folds the
 * tree into the model's `Command`s. Each declaration keeps where it was written, because
 * resolution errors (a bad `select`, two defaults, an unknown flagset) are reported there.
 */
export interface Declared {
  readonly file: string
  readonly line?: number | undefined
  /** The node as written, for messages: `output "json"`. */
  readonly label: string
}

export interface OutputDecl extends Declared {
  readonly name: string
  readonly media_type?: string | undefined
  readonly framing: Framing
  readonly help?: string | undefined
  readonly default: boolean
  /** `hide=#true`: removes the inherited output of that name (or declares a hidden one). */
  readonly hide: boolean
  /** `select="--json"`: a boolean flag choosing this output. */
  readonly select?: string | undefined
  readonly schema?: string | undefined
  readonly schema_file?: string | undefined
}

export interface SelectDecl extends Declared {
  readonly flag: string
}

export interface ExitCodeDecl extends Declared {
  readonly code: number
  readonly description: string
}

export interface FlagDecl extends Declared {
  /** The flag with its declared choices (a `select` may later fill or check them). */
  readonly flag: Flag
}

/** `use "a" "b"`: the flags of those flagsets belong where it stands. */
export interface UseDecl extends Declared {
  readonly names: ReadonlyArray<string>
  /** How many of the command's own flags are declared before it. */
  readonly at: number
}

/** `flagset "name" { flag ...; use ... }` (top level only). */
export interface FlagsetDecl extends Declared {
  readonly name: string
  readonly flags: ReadonlyArray<FlagDecl>
  readonly uses: ReadonlyArray<UseDecl>
}

export interface CommandDecl extends Declared, CommandAttrs {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  readonly hidden_aliases: ReadonlyArray<string>
  readonly flags: ReadonlyArray<FlagDecl>
  readonly uses: ReadonlyArray<UseDecl>
  readonly args: ReadonlyArray<Arg>
  readonly outputs: ReadonlyArray<OutputDecl>
  /** Every `select` node (more than one is an error reported by resolution). */
  readonly selects: ReadonlyArray<SelectDecl>
  readonly exit_codes: ReadonlyArray<ExitCodeDecl>
  readonly examples: ReadonlyArray<Example>
  readonly complete: ReadonlyArray<Complete>
  readonly mounts: ReadonlyArray<Mount>
  readonly subcommands: ReadonlyArray<CommandDecl>
  readonly passthrough: ReadonlyArray<PassthroughNode>
}
