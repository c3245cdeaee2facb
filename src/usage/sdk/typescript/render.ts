import type { Spec } from "../../model.js"
import { commandDoc, execDoc, flagDoc, outputMethodDoc } from "../docs.js"
import { type ArgPlan, type CommandPlan, type FlagPlan, planSdk } from "../plan.js"
import { typeScriptRuntime } from "./runtime.js"

/**
 * Renders the TypeScript SDK: `runtime.ts` (fixed), `commands.ts` (one class per command, with
 * its flag, argument and exit-code types) and `index.ts` (re-exports). Relative imports carry
 * `.js` so the files work under `module: nodenext` as ES modules or CommonJS.
 */

/** A JSDoc block; `*\/` in spec text is broken up so it cannot end the comment. */
const jsDoc = (lines: ReadonlyArray<string>, indent: string): string => {
  const safe = lines.map((line) => line.replaceAll("*/", "*\\/"))
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`
  return `${indent}/**\n${safe.map((line) => (line === "" ? `${indent} *` : `${indent} * ${line}`)).join("\n")}\n${indent} */\n`
}

const literal = (value: string): string => JSON.stringify(value)

const union = (values: ReadonlyArray<string>): string => values.map(literal).join(" | ")

const flagType = (plan: FlagPlan): string => {
  if (plan.kind === "boolean") return plan.variadic ? "boolean | number" : "boolean"
  const one = plan.choices === undefined ? "string" : union(plan.choices)
  return plan.variadic ? `${one} | ReadonlyArray<${one}>` : one
}

const flagKey = (plan: FlagPlan): string => (plan.tsKeyQuoted ? literal(plan.tsKey) : plan.tsKey)

const flagsTypeDecl = (plan: CommandPlan): string => {
  const doc = jsDoc([`Flags of \`${plan.invocation}\`; each key is a flag's long name in camelCase.`], "")
  if (plan.flags.length === 0)
    return `${doc}export type ${plan.flagsType} = Readonly<Record<string, never>>\n`
  const fields = plan.flags.map(
    (flag) => `${jsDoc(flagDoc(flag), "  ")}  readonly ${flagKey(flag)}?: ${flagType(flag)}\n`,
  )
  return `${doc}export type ${plan.flagsType} = {\n${fields.join("")}}\n`
}

const jsonFlagsTypeDecl = (plan: CommandPlan): string => {
  const doc = jsDoc(
    [
      `Flags of the parsed-output methods of \`${plan.invocation}\`: the output selector flags are left out,`,
      "since each method passes its own.",
    ],
    "",
  )
  const omitted = plan.selectorFlags.map((flag) => literal(flag.tsKey))
  const type = omitted.length === 0 ? plan.flagsType : `Omit<${plan.flagsType}, ${omitted.join(" | ")}>`
  return `${doc}export type ${plan.jsonFlagsType} = ${type}\n`
}

const argType = (plan: ArgPlan): string => (plan.choices === undefined ? "string" : union(plan.choices))

/**
 * A labelled tuple when the arguments are in a shape a tuple can express (required ones, then
 * optional ones, then at most one variadic last); a plain string array otherwise.
 */
const argsTuple = (args: ReadonlyArray<ArgPlan>): { readonly type: string; readonly required: boolean } => {
  let seenOptional = false
  const elements: Array<string> = []
  for (const [index, plan] of args.entries()) {
    const { arg } = plan
    if (arg.variadic) {
      if (index !== args.length - 1) return { type: "ReadonlyArray<string>", required: false }
      elements.push(`...${plan.tsLabel}: Array<${argType(plan)}>`)
    } else if (arg.required) {
      if (seenOptional) return { type: "ReadonlyArray<string>", required: false }
      elements.push(`${plan.tsLabel}: ${argType(plan)}`)
    } else {
      seenOptional = true
      elements.push(`${plan.tsLabel}?: ${argType(plan)}`)
    }
  }
  return {
    type: `readonly [${elements.join(", ")}]`,
    required: args.some((plan) => plan.arg.required && !plan.arg.variadic),
  }
}

const exitCodeDecl = (plan: CommandPlan): string => {
  if (plan.exitCodes.length === 0) return ""
  const members = plan.exitCodes.map(
    (code) => `${jsDoc([code.exitCode.description], "  ")}  ${code.tsKey}: ${code.exitCode.code},\n`,
  )
  return (
    jsDoc([`Exit statuses \`${plan.invocation}\` declares.`], "") +
    `export const ${plan.exitCodeType} = {\n${members.join("")}} as const\n` +
    jsDoc([`One of the exit statuses \`${plan.invocation}\` declares.`], "") +
    `export type ${plan.exitCodeType} = (typeof ${plan.exitCodeType})[keyof typeof ${plan.exitCodeType}]\n`
  )
}

const classDecl = (plan: CommandPlan, bin: string, used: Set<string>): string => {
  const cls = plan.className
  const args = argsTuple(plan.args)
  const argsParam = `args: ${plan.argsType}${args.required ? "" : " = []"}`
  // The raw method passes flags as given; the parsed ones drop the selector flags they set.
  const argv = (selector: ReadonlyArray<string>, parsed: boolean) => {
    const omit = parsed ? plan.selectorFlags.map((flag) => literal(flag.tsKey)) : []
    const extra = selector.length === 0 && omit.length === 0 ? "" : `, [${selector.map(literal).join(", ")}]`
    return `buildArgv(${cls}.path, ${cls}.flagTable, flags, args${extra}${omit.length === 0 ? "" : `, [${omit.join(", ")}]`})`
  }
  const table = plan.flags.map(
    (flag) => `    ${literal(flag.tsKey)}: { argv: ${literal(flag.argv)}, kind: "${flag.kind}" },\n`,
  )
  const members: Array<string> = [
    `${jsDoc(["Subcommand path, put on the command line before flags and arguments."], "  ")}  static readonly path: ReadonlyArray<string> = [${plan.command.path.map(literal).join(", ")}]\n`,
    `${jsDoc(["How each key of the flags object goes on the command line."], "  ")}  static readonly flagTable: FlagTable = {${table.length === 0 ? "" : `\n${table.join("")}  `}}\n`,
  ]
  if (plan.exitCodes.length > 0) {
    members.push(
      `${jsDoc([`Exit statuses this command declares.`], "  ")}  static readonly ExitCode = ${plan.exitCodeType}\n`,
    )
  }
  members.push(
    `${jsDoc(["The binary run: a name looked up on PATH, or a path."], "  ")}  readonly bin: string\n\n` +
      `  constructor(bin: string = ${literal(bin)}) {\n    this.bin = bin\n  }\n`,
  )
  used.add("buildArgv").add("FlagTable").add("ExecOptions").add("ExecResult").add("runExec")
  members.push(
    `${jsDoc(execDoc(plan, "typescript"), "  ")}  exec(${argsParam}, flags: ${plan.flagsType} = {}, options: ExecOptions = {}): Promise<ExecResult> {\n` +
      `    return runExec(this.bin, ${argv([], false)}, options)\n  }\n`,
  )
  for (const method of plan.methods) {
    const doc = jsDoc(outputMethodDoc(method, plan.methods, "typescript"), "  ")
    const params = `${argsParam}, flags: ${plan.jsonFlagsType} = {}, options: ExecOptions = {}`
    if (method.framing === "json") {
      used.add("JsonResult").add("runJson")
      members.push(
        `${doc}  ${method.tsName}<T = unknown>(${params}): Promise<JsonResult<T>> {\n` +
          `    return runJson<T>(this.bin, ${argv(method.selectorArgv, true)}, options)\n  }\n`,
      )
    } else {
      used.add("JsonlStream").add("runJsonl")
      members.push(
        `${doc}  ${method.tsName}<T = unknown>(${params}): JsonlStream<T> {\n` +
          `    return runJsonl<T>(this.bin, ${argv(method.selectorArgv, true)}, options)\n  }\n`,
      )
    }
  }
  return `${jsDoc(commandDoc(plan), "")}export class ${cls} {\n${members.join("\n")}}\n`
}

const commandDecls = (plan: CommandPlan, bin: string, used: Set<string>): string => {
  const parts = [exitCodeDecl(plan), flagsTypeDecl(plan)]
  if (plan.methods.length > 0) parts.push(jsonFlagsTypeDecl(plan))
  parts.push(
    `${jsDoc([`Positional arguments of \`${plan.invocation}\`, in order.`], "")}export type ${plan.argsType} = ${argsTuple(plan.args).type}\n`,
    classDecl(plan, bin, used),
  )
  return parts.filter((part) => part !== "").join("\n")
}

/** Runtime exports that are types only (imported with `import type`). */
const runtimeTypes = new Set(["ExecOptions", "ExecResult", "FlagTable", "JsonResult"])

const header = (spec: Spec): string =>
  `// Generated from the usage spec of \`${spec.bin}\`${spec.version === undefined ? "" : ` ${spec.version}`}. Do not edit: regenerate.\n`

/** The files of a TypeScript SDK for `spec`, by path relative to the SDK's directory. */
export const generateTypeScriptSdk = (spec: Spec): ReadonlyMap<string, string> => {
  const plan = planSdk(spec)
  const used = new Set<string>()
  const body = plan.commands.map((command) => commandDecls(command, spec.bin, used)).join("\n")
  const imports = [...used]
    .sort()
    .map((name) => (runtimeTypes.has(name) ? `type ${name}` : name))
    .join(", ")
  const commands = `${header(spec)}import { ${imports} } from "./runtime.js"\n\n${body}`
  const about = spec.about === undefined ? "" : `\n *\n * ${spec.about.replaceAll("*/", "*\\/")}`
  const index =
    `${header(spec)}/**\n * SDK for \`${spec.bin}\`: one class per command (\`exec\` runs it raw; \`execJson…\` and\n` +
    ` * \`execJsonl…\` parse its declared JSON and JSON Lines outputs).${about}\n */\n` +
    `export * from "./commands.js"\nexport * from "./runtime.js"\n`
  return new Map([
    ["index.ts", index],
    ["commands.ts", commands],
    ["runtime.ts", `${header(spec)}${typeScriptRuntime}`],
  ])
}
