/**
 * Consumers of a resolved usage spec: command-line validation, shell completions, Markdown and
 * man page references, and the MCP list/describe operations. All are pure functions of a
 * `Spec` (see `../model.ts`), so the CLI, build scripts and the MCP server share them.
 */
export { allCommands, findCommand, usageLine, visibleCommands } from "./commands.js"
export { completionScript, type Shell } from "./completion.js"
export { manPage } from "./manpage.js"
export { markdownDocs } from "./markdown.js"
export {
  type ArgDescription,
  type ChoiceDescription,
  type CommandDescription,
  type CommandSummary,
  type DescribeResult,
  describeCommand,
  type FlagDescription,
  listCommands,
  type OutputDescription,
} from "./mcp.js"
export { type Json, parseSchema } from "./schema-text.js"
export { type ArgvResult, validateArgv } from "./validate.js"
