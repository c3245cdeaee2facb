import type { Arg, Flag, Framing, PassthroughNode } from "./model.js"

/**
 * What one command of the spec declares, as written (before inheritance). Parsing produces a
 * tree of these; `resolve.ts` folds it into the model's `Command`s. Each declaration keeps where
 * it was written, because resolution errors (a bad `select`, two defaults) are reported there.
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
  /** `hide=#true`: removes the inherited output of that name. */
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

export interface ExampleDecl {
  readonly code: string
  readonly header?: string | undefined
  readonly help?: string | undefined
}

export interface CommandDecl extends Declared {
  readonly name: string
  readonly aliases: ReadonlyArray<string>
  readonly help?: string | undefined
  readonly long_help?: string | undefined
  readonly hide: boolean
  readonly flags: ReadonlyArray<FlagDecl>
  readonly args: ReadonlyArray<Arg>
  readonly outputs: ReadonlyArray<OutputDecl>
  /** Every `select` node (more than one is an error reported by resolution). */
  readonly selects: ReadonlyArray<SelectDecl>
  readonly exit_codes: ReadonlyArray<ExitCodeDecl>
  readonly examples: ReadonlyArray<ExampleDecl>
  readonly subcommands: ReadonlyArray<CommandDecl>
  readonly passthrough: ReadonlyArray<PassthroughNode>
}
