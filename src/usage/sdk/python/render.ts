import type { Spec } from "../../model.js"
import { commandDoc, execDoc, flagDoc, outputMethodDoc } from "../docs.js"
import { type CommandPlan, type FlagPlan, planSdk } from "../plan.js"
import { pythonRuntime } from "./runtime.js"

/**
 * Renders the Python SDK as a package directory: `_runtime.py` (fixed), `commands.py` (one class
 * per command, with its flags TypedDict and exit-code IntEnum) and `__init__.py` (re-exports).
 * Typing uses only `typing` constructs available since Python 3.8 (`Literal`, `TypedDict`).
 */

/** A docstring; backslashes and triple quotes in spec text are escaped so it stays one literal. */
const docstring = (lines: ReadonlyArray<string>, indent: string): string => {
  const safe = lines.map((line) => line.replaceAll("\\", "\\\\").replaceAll('"""', '\\"\\"\\"'))
  const last = safe.length - 1
  // A closing quote right before the closing triple quote would merge with it.
  if (safe[last]?.endsWith('"')) safe[last] = `${safe[last]?.slice(0, -1)}\\"`
  if (safe.length === 1) return `${indent}"""${safe[0]}"""\n`
  const body = safe.map((line, index) => (index === 0 || line === "" ? line : `${indent}${line}`))
  return `${indent}"""${body.join("\n")}\n${indent}"""\n`
}

/** `#:` comments, the attribute-doc form Sphinx reads and TypedDict bodies allow. */
const attributeDoc = (lines: ReadonlyArray<string>, indent: string): string =>
  `${lines.map((line) => `${indent}#: ${line}`.trimEnd()).join("\n")}\n`

/** JSON string literals are valid Python string literals. */
const literal = (value: string): string => JSON.stringify(value)

const tuple = (values: ReadonlyArray<string>): string =>
  values.length === 1 ? `(${literal(values[0] ?? "")},)` : `(${values.map(literal).join(", ")})`

const flagType = (plan: FlagPlan): string => {
  if (plan.kind === "boolean") return plan.variadic ? "Union[bool, int]" : "bool"
  const one = plan.choices === undefined ? "str" : `Literal[${plan.choices.map(literal).join(", ")}]`
  return plan.variadic ? `Union[${one}, Sequence[${one}]]` : one
}

const typedDict = (
  name: string,
  base: string,
  doc: ReadonlyArray<string>,
  flags: ReadonlyArray<FlagPlan>,
) => {
  const fields = flags.map(
    (flag) => `${attributeDoc(flagDoc(flag), "    ")}    ${flag.pyKey}: ${flagType(flag)}\n`,
  )
  return `class ${name}(${base}, total=False):\n${docstring(doc, "    ")}${fields.length === 0 ? "" : `\n${fields.join("")}`}`
}

const flagsDecls = (plan: CommandPlan): string => {
  const doc = [`Flags of \`${plan.invocation}\`; each key is a flag's long name in snake_case.`]
  if (plan.methods.length === 0) return typedDict(plan.flagsType, "TypedDict", doc, plan.flags)
  if (plan.selectorFlags.length === 0) {
    return `${typedDict(plan.flagsType, "TypedDict", doc, plan.flags)}\n\n${plan.jsonFlagsType} = ${plan.flagsType}\n"""Flags of the parsed-output methods of \`${plan.invocation}\`."""\n`
  }
  // The selector flags are the only difference, so the full type extends the parsed-output one.
  const jsonDoc = [
    `Flags of the parsed-output methods of \`${plan.invocation}\`: the output selector flags`,
    "are left out, since each method passes its own.",
  ]
  const others = plan.flags.filter((flag) => !plan.selectorFlags.includes(flag))
  return `${typedDict(plan.jsonFlagsType, "TypedDict", jsonDoc, others)}\n\n${typedDict(plan.flagsType, plan.jsonFlagsType, doc, plan.selectorFlags)}`
}

const exitCodeDecl = (plan: CommandPlan): string => {
  if (plan.exitCodes.length === 0) return ""
  const members = plan.exitCodes.map(
    (code) =>
      `${attributeDoc([code.exitCode.description], "    ")}    ${code.pyKey} = ${code.exitCode.code}\n`,
  )
  return `class ${plan.exitCodeType}(enum.IntEnum):\n${docstring([`Exit statuses \`${plan.invocation}\` declares.`], "    ")}\n${members.join("")}`
}

const method = (
  name: string,
  params: ReadonlyArray<string>,
  returns: string,
  doc: ReadonlyArray<string>,
  body: string,
) =>
  `    def ${name}(\n${["self", ...params].map((param) => `        ${param},\n`).join("")}    ) -> ${returns}:\n` +
  `${docstring(doc, "        ")}        return ${body}\n`

const classDecl = (plan: CommandPlan, bin: string): string => {
  const required = plan.args.some((arg) => arg.arg.required && !arg.arg.variadic)
  const argsParam = `args: Sequence[str]${required ? "" : " = ()"}`
  const where = ["*", "cwd: Optional[str] = None", "env: Optional[Mapping[str, str]] = None"]
  // The raw method passes flags as given; the parsed ones drop the selector flags they set.
  const argv = (selector: ReadonlyArray<string>, parsed: boolean) => {
    const omit = parsed ? plan.selectorFlags.map((flag) => flag.pyKey) : []
    const extra = selector.length === 0 && omit.length === 0 ? "" : `, ${tuple(selector)}`
    return `build_argv(self.PATH, self.FLAGS, flags, args${extra}${omit.length === 0 ? "" : `, ${tuple(omit)}`})`
  }
  const table = plan.flags.map(
    (flag) => `        ${literal(flag.pyKey)}: FlagSpec(${literal(flag.argv)}, "${flag.kind}"),\n`,
  )
  const parts = [
    `class ${plan.className}:\n${docstring(commandDoc(plan), "    ")}`,
    `    PATH: Tuple[str, ...] = ${plan.command.path.length === 0 ? "()" : tuple(plan.command.path)}\n` +
      `    """Subcommand path, put on the command line before flags and arguments."""\n` +
      `    FLAGS: Mapping[str, FlagSpec] = {${table.length === 0 ? "" : `\n${table.join("")}    `}}\n` +
      `    """How each key of the flags dict goes on the command line."""\n` +
      (plan.exitCodes.length === 0
        ? ""
        : `    ExitCode = ${plan.exitCodeType}\n    """Exit statuses this command declares."""\n`),
    `    def __init__(self, bin: str = ${literal(bin)}) -> None:\n        self.bin = bin\n        """The binary run: a name looked up on PATH, or a path."""\n`,
    method(
      "exec",
      [argsParam, `flags: Optional[${plan.flagsType}] = None`, ...where],
      "ExecResult",
      execDoc(plan, "python"),
      `run_exec(self.bin, ${argv([], false)}, cwd, env)`,
    ),
  ]
  for (const output of plan.methods) {
    const params = [argsParam, `flags: Optional[${plan.jsonFlagsType}] = None`, ...where]
    const doc = outputMethodDoc(output, plan.methods, "python")
    parts.push(
      output.framing === "json"
        ? method(
            output.pyName,
            params,
            "JsonResult",
            doc,
            `run_json(self.bin, ${argv(output.selectorArgv, true)}, cwd, env)`,
          )
        : method(
            output.pyName,
            [...params, "kill_grace: float = 2.0"],
            "JsonlStream",
            doc,
            `run_jsonl(self.bin, ${argv(output.selectorArgv, true)}, cwd, env, kill_grace)`,
          ),
    )
  }
  return parts.join("\n")
}

const header = (spec: Spec): string =>
  `# Generated from the usage spec of \`${spec.bin}\`${spec.version === undefined ? "" : ` ${spec.version}`}. Do not edit: regenerate.\n`

const runtimeExports = [
  "ExecResult",
  "ExitInfo",
  "FlagSpec",
  "FlagValue",
  "JsonParseError",
  "JsonResult",
  "JsonValue",
  "JsonlStream",
]

/** The files of a Python SDK package for `spec`, by path relative to the package directory. */
export const generatePythonSdk = (spec: Spec): ReadonlyMap<string, string> => {
  const plan = planSdk(spec)
  const decls = plan.commands.flatMap((command) =>
    [exitCodeDecl(command), flagsDecls(command), classDecl(command, spec.bin)].filter((part) => part !== ""),
  )
  const commands =
    `${header(spec)}"""Command classes of the \`${spec.bin}\` SDK."""\n\n` +
    "from __future__ import annotations\n\nimport enum\n" +
    "from typing import Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union\n\n" +
    "from ._runtime import (\n    ExecResult,\n    FlagSpec,\n    JsonlStream,\n    JsonResult,\n" +
    "    build_argv,\n    run_exec,\n    run_json,\n    run_jsonl,\n)\n\n\n" +
    decls.join("\n\n")
  const names = plan.commands.flatMap((command) => [
    ...(command.exitCodes.length === 0 ? [] : [command.exitCodeType]),
    command.flagsType,
    ...(command.methods.length === 0 ? [] : [command.jsonFlagsType]),
    command.className,
  ])
  const about = spec.about === undefined ? [] : ["", spec.about]
  const init =
    header(spec) +
    docstring(
      [
        `SDK for \`${spec.bin}\`: one class per command (\`exec\` runs it raw; \`exec_json_*\` and`,
        "``exec_jsonl_*`` parse its declared JSON and JSON Lines outputs).",
        ...about,
      ],
      "",
    ) +
    `\nfrom ._runtime import (\n${runtimeExports.map((name) => `    ${name},\n`).join("")})\n` +
    `from .commands import (\n${names.map((name) => `    ${name},\n`).join("")})\n\n` +
    `__all__ = [\n${[...runtimeExports, ...names].map((name) => `    ${literal(name)},\n`).join("")}]\n`
  return new Map([
    ["__init__.py", init],
    ["commands.py", commands],
    ["_runtime.py", `${header(spec)}${pythonRuntime}`],
  ])
}
