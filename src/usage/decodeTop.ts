import { readAttrs } from "./attrs.js"
import { type DecodeContext, reporter } from "./context.js"
import type { CommandDecl, FlagsetDecl } from "./decl.js"
import { BODY_NODES, commandAttrs, commandDecl, decodeBody } from "./decodeBody.js"
import { decodeConfig } from "./decodeConfig.js"
import { decodeFlagset } from "./flagsets.js"
import { formatNode } from "./kdl/format.js"
import type { KdlNode } from "./kdl.js"
import type { Config, Kept, PassthroughNode } from "./model.js"
import { TOP } from "./vocabulary.js"

/** The sections a `help_template` may place (usage's help_template.rs). */
export const HELP_SECTIONS = ["about", "usage", "commands", "args", "flags", "after_help"] as const

/** Why a `help_template` names something that is not a section, if it does. */
export const helpTemplateProblem = (template: string): string | undefined => {
  for (const m of template.matchAll(/\{\{(.*?)(\}\}|$)/gs)) {
    if (m[2] === "") return `a {{ with no }} after it; the sections are ${HELP_SECTIONS.join(", ")}`
    const name = m[1]!.trim()
    if (!(HELP_SECTIONS as ReadonlyArray<string>).includes(name))
      return `names no section "${name}"; a page is assembled from ${HELP_SECTIONS.join(", ")} (clap's {options} is {{flags}} here and its {positionals} is {{args}})`
  }
  return undefined
}

/**
 * The top level of a spec (lib/src/spec/mod.rs, docs/spec/reference/index.md): the metadata
 * (`name`, `bin`, `version`, ...), the root command's own body and attributes, `config`, the
 * `flagset`s, and `view` (kept as written). A metadata node given twice keeps the later value,
 * as in usage.
 */

export interface Metadata {
  readonly name?: string | undefined
  readonly bin?: string | undefined
  readonly version?: string | undefined
  readonly long_version?: string | undefined
  readonly about?: string | undefined
  readonly long_about?: string | undefined
  readonly author?: string | undefined
  readonly license?: string | undefined
  readonly usage?: string | undefined
  readonly repository?: string | undefined
  readonly source_code_link_template?: string | undefined
  readonly min_usage_version?: string | undefined
}

const METADATA = [
  "name",
  "bin",
  "version",
  "long_version",
  "about",
  "long_about",
  "author",
  "license",
  "usage",
  "repository",
  "source_code_link_template",
  "min_usage_version",
] as const

export interface TopLevel {
  readonly meta: Metadata
  /** The root command, named later (its name is the spec's bin). */
  readonly root: (name: string) => CommandDecl
  readonly flagsets: ReadonlyArray<FlagsetDecl>
  readonly config?: Config | undefined
  readonly passthrough: ReadonlyArray<PassthroughNode>
  readonly kept?: Kept | undefined
}

export const decodeTop = (nodes: ReadonlyArray<KdlNode>, file: string, ctx: DecodeContext): TopLevel => {
  const doc: KdlNode = { name: "", values: [], properties: {}, children: nodes, file }
  const attrs = readAttrs(doc, TOP, () => {}, {
    what: "the top level",
    // What mod.rs reads at the top: a command's nodes but `alias` and `clause`, and its own.
    structural: [...BODY_NODES.filter((n) => n !== "alias" && n !== "clause"), "flagset", "config", "view"],
    childReport: (child) => reporter(ctx, child, []),
  })
  for (const node of nodes)
    if (node.name === "help_template" && typeof node.values[0] === "string") {
      const problem = helpTemplateProblem(node.values[0])
      if (problem !== undefined) ctx.problems.add(node, [], "help_template", problem)
    }
  const meta: Record<string, string | undefined> = {}
  for (const key of METADATA) meta[key] = attrs.string(key)
  const flagsets: Array<FlagsetDecl> = []
  const passthrough: Array<PassthroughNode> = []
  let config: Config | undefined
  const body: Array<KdlNode> = []
  for (const node of attrs.rest) {
    if (node.name === "flagset") {
      const set = decodeFlagset(node, ctx)
      if (set !== undefined) flagsets.push(set)
    } else if (node.name === "config")
      config = decodeConfig(node, reporter(ctx, node, []), (child) => reporter(ctx, child, [], "config"))
    else if (node.name === "view") passthrough.push({ kdl: formatNode(node).join("\n") })
    else body.push(node)
  }
  // The root's own attributes: what the top level says that a command says too. Kept ones stay
  // with the spec, where `spec fmt` writes them back as top-level nodes.
  const { kept, ...rootAttrs } = commandAttrs(attrs)
  return {
    meta,
    root: (name) => {
      const decoded = decodeBody(body, [name], ctx)
      return commandDecl({ file, label: name }, name, { ...rootAttrs, hide: false }, decoded)
    },
    flagsets,
    config,
    passthrough,
    kept,
  }
}
