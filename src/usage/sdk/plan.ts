import { flagHasName } from "../consume/flags.js"
import {
  type Arg,
  type Command,
  type ExitCode,
  type Flag,
  type Output,
  PARSED_FRAMINGS,
  type ParsedFraming,
  type Spec,
} from "../model.js"
import {
  camelCase,
  isTypeScriptPropertyName,
  NameAllocator,
  pascalCase,
  pythonIdentifier,
  snakeCase,
  typeName,
  typeScriptBinding,
  upperSnakeCase,
  words,
} from "./naming.js"

/**
 * The language-neutral plan of an SDK: every name and every command-line fragment decided once,
 * so the TypeScript and Python renderers only format text and cannot disagree (the same method
 * exists in both, the same flag maps to the same `--name`, the same exit code gets the same key).
 */
export interface SdkPlan {
  readonly spec: Spec
  /** Commands in spec order: the root first, then depth-first. */
  readonly commands: ReadonlyArray<CommandPlan>
}

/** A flag as the SDK passes it: the key callers use and what it becomes on the command line. */
export interface FlagPlan {
  readonly flag: Flag
  /** What goes on the command line: `--dry-run`, or `-n` for a flag with only a short name. */
  readonly argv: string
  /** Property name in the TypeScript flags object (`dryRun`), quoted when not an identifier. */
  readonly tsKey: string
  /** Whether `tsKey` must be written quoted. */
  readonly tsKeyQuoted: boolean
  /** Key in the Python flags dict (`dry_run`). */
  readonly pyKey: string
  /** `boolean` flags are present or not; `value` flags take a string. */
  readonly kind: "boolean" | "value"
  readonly variadic: boolean
  /** Declared choices (or the ones a `select` filled in): the value type is their union. */
  readonly choices: ReadonlyArray<string> | undefined
}

/** A positional argument with its TypeScript tuple label. */
export interface ArgPlan {
  readonly arg: Arg
  readonly tsLabel: string
  readonly choices: ReadonlyArray<string> | undefined
}

/** A parsed-output method: `execJson…` (json framing) or `execJsonl…` (jsonl framing). */
export interface OutputMethodPlan {
  readonly output: Output
  readonly framing: ParsedFraming
  /** What the method itself puts on the command line to select the output (`--format json`). */
  readonly selectorArgv: ReadonlyArray<string>
  readonly tsName: string
  readonly pyName: string
  /** A convenience alias (`execJson` for the only json output), documented as such. */
  readonly alias: boolean
}

export interface ExitCodePlan {
  readonly exitCode: ExitCode
  /** Member of the TypeScript `as const` object (`DaemonNotFound`). */
  readonly tsKey: string
  /** Member of the Python IntEnum (`DAEMON_NOT_FOUND`). */
  readonly pyKey: string
}

export interface CommandPlan {
  readonly command: Command
  /** How a user types it, for doc comments: `mycli daemons start`. */
  readonly invocation: string
  readonly className: string
  readonly flagsType: string
  /** Flags of the output methods: `flagsType` without the output selector flags. */
  readonly jsonFlagsType: string
  readonly argsType: string
  readonly exitCodeType: string
  readonly flags: ReadonlyArray<FlagPlan>
  /** Flags that select an output; the output methods set them and callers cannot. */
  readonly selectorFlags: ReadonlyArray<FlagPlan>
  readonly args: ReadonlyArray<ArgPlan>
  readonly methods: ReadonlyArray<OutputMethodPlan>
  readonly exitCodes: ReadonlyArray<ExitCodePlan>
}

/**
 * Names the runtime modules export; generated type and class names must not shadow them.
 * Keep in sync with the runtimes (`typescript/runtime.ts`, `python/runtime.ts`).
 */
export const runtimeNames: ReadonlyArray<string> = [
  "ExecOptions",
  "ExecResult",
  "ExitInfo",
  "FlagSpec",
  "FlagTable",
  "FlagValue",
  "FlagValues",
  "JsonResult",
  "JsonParseError",
  "JsonValue",
  "JsonlStream",
  "buildArgv",
  "runExec",
  "runJson",
  "runJsonl",
]

const choiceValues = (choices: ReadonlyArray<{ readonly value: string }> | undefined) =>
  choices === undefined || choices.length === 0 ? undefined : choices.map((choice) => choice.value)

const planFlags = (all: ReadonlyArray<Flag>): ReadonlyArray<FlagPlan> => {
  const tsKeys = new NameAllocator()
  const pyKeys = new NameAllocator()
  // A flag with only a `name:` cannot be given on a command line: the SDK has no key for it.
  const flags = all.filter((flag) => flag.long.length + flag.short.length > 0)
  return flags.map((flag, index) => {
    const long = flag.long[0]
    const short = flag.short[0]
    const name = long ?? short ?? `flag${index}`
    const argv = long !== undefined ? `--${long}` : short !== undefined ? `-${short}` : `--${name}`
    // A one-letter short name keeps its case (`-V` and `-v` differ); long names are camel-cased.
    const camel = long === undefined && short !== undefined ? short : camelCase(name)
    const tsKey = tsKeys.take(camel === "" ? `flag${index}` : camel)
    const pyKey = pyKeys.take(
      pythonIdentifier(
        long === undefined && short !== undefined ? short : snakeCase(name),
        `flag${index}`,
        "f_",
      ),
    )
    return {
      flag,
      argv,
      tsKey,
      tsKeyQuoted: !isTypeScriptPropertyName(tsKey),
      pyKey,
      kind: flag.arg === undefined ? "boolean" : "value",
      variadic: flag.variadic,
      choices: choiceValues(flag.arg?.choices),
    }
  })
}

const planArgs = (args: ReadonlyArray<Arg>): ReadonlyArray<ArgPlan> => {
  const labels = new NameAllocator()
  return args.map((arg, index) => ({
    arg,
    tsLabel: labels.take(typeScriptBinding(arg.name, `arg${index}`)),
    choices: choiceValues(arg.choices),
  }))
}

/** The flag a selector names (`--format`, `--json`, `-j`), if the command declares it. */
const selectorFlag = (flags: ReadonlyArray<FlagPlan>, name: string): FlagPlan | undefined =>
  flags.find((plan) => flagHasName(plan.flag, name))

/**
 * An output gets a parsed method when its framing is json or jsonl and the SDK can ask for it:
 * it has a selector, or it is the default output (asked for by passing no selector at all).
 */
const isParsed = (output: Output): output is Output & { readonly framing: ParsedFraming } =>
  output.framing !== "text" && (output.selector !== null || output.default)

/**
 * Method names: `execJson<Name>` for json framing and `execJsonl<Name>` for jsonl framing, Name
 * being the output's name in PascalCase, dropped when the name is the framing itself (an output
 * named `json` gives `execJson`). When a command has exactly one output of a framing, the bare
 * `execJson` / `execJsonl` is added as an alias. Python: `exec_json_<name>`, `exec_jsonl_<name>`.
 */
const planMethods = (outputs: ReadonlyArray<Output>): ReadonlyArray<OutputMethodPlan> => {
  const tsNames = new NameAllocator(["exec", "bin", "constructor"])
  const pyNames = new NameAllocator(["exec", "bin"])
  const parsed = outputs.filter(isParsed)
  const methods: Array<OutputMethodPlan> = parsed.map((output) => {
    const base = output.framing === "json" ? "execJson" : "execJsonl"
    const sameAsFraming = words(output.name).join("") === output.framing
    const selectorArgv =
      output.selector === null
        ? []
        : output.selector.kind === "value"
          ? [output.selector.flag, output.selector.value]
          : [output.selector.flag]
    return {
      output,
      framing: output.framing,
      selectorArgv,
      tsName: tsNames.take(sameAsFraming ? base : `${base}${pascalCase(output.name)}`),
      pyName: pyNames.take(
        sameAsFraming || snakeCase(output.name) === ""
          ? `exec_${output.framing}`
          : `exec_${output.framing}_${snakeCase(output.name)}`,
      ),
      alias: false,
    }
  })
  for (const framing of PARSED_FRAMINGS) {
    const only = methods.filter((method) => method.framing === framing)
    const single = only[0]
    const tsAlias = framing === "json" ? "execJson" : "execJsonl"
    const pyAlias = `exec_${framing}`
    if (only.length !== 1 || single === undefined || tsNames.has(tsAlias) || pyNames.has(pyAlias)) continue
    methods.push({ ...single, tsName: tsNames.take(tsAlias), pyName: pyNames.take(pyAlias), alias: true })
  }
  return methods
}

/** Keys from the description's first words (`DaemonNotFound`), `Exit<code>` when it has none. */
const planExitCodes = (exitCodes: ReadonlyArray<ExitCode>): ReadonlyArray<ExitCodePlan> => {
  const tsKeys = new NameAllocator()
  const pyKeys = new NameAllocator()
  return exitCodes.map((exitCode) => {
    const phrase = words(exitCode.description).slice(0, 6).join(" ")
    const code = String(exitCode.code).replace("-", "Minus")
    const ts = typeName(phrase, "Exit")
    const py = upperSnakeCase(phrase)
    return {
      exitCode,
      tsKey: tsKeys.take(ts === "" ? `Exit${code}` : ts),
      pyKey: pyKeys.take(pythonIdentifier(py, `EXIT_${code.toUpperCase()}`, "EXIT_")),
    }
  })
}

const allCommands = (root: Command): ReadonlyArray<Command> => [
  root,
  ...root.subcommands.flatMap((sub) => allCommands(sub)),
]

/** Decides every name and command-line fragment of the SDK for `spec`. */
export const planSdk = (spec: Spec): SdkPlan => {
  const types = new NameAllocator(runtimeNames)
  const binBase = typeName(spec.bin, "Cli")
  const commands = allCommands(spec.root).map((command): CommandPlan => {
    const pathBase = command.path.map((segment) => typeName(segment, "")).join("")
    const base = command.path.length === 0 ? binBase || "Root" : typeName(pathBase, "Cmd") || "Command"
    const flags = planFlags(command.flags)
    const methods = planMethods(command.outputs)
    const selectorFlags: Array<FlagPlan> = []
    for (const output of command.outputs.filter(isParsed)) {
      const flag = output.selector === null ? undefined : selectorFlag(flags, output.selector.flag)
      if (flag !== undefined && !selectorFlags.includes(flag)) selectorFlags.push(flag)
    }
    return {
      command,
      invocation: [spec.bin, ...command.path].join(" "),
      className: types.take(`${base}Command`),
      flagsType: types.take(`${base}Flags`),
      jsonFlagsType: types.take(`${base}JsonFlags`),
      argsType: types.take(`${base}Args`),
      exitCodeType: types.take(`${base}ExitCode`),
      flags,
      selectorFlags: flags.filter((flag) => selectorFlags.includes(flag)),
      args: planArgs(command.args),
      methods,
      exitCodes: planExitCodes(command.exit_codes),
    }
  })
  return { spec, commands }
}
