/**
 * SDK generators: a resolved usage spec in, the source files of a TypeScript or Python SDK out.
 * Each command becomes a class with the raw `exec`, plus parsed methods for its json and jsonl
 * outputs (see `plan.ts` for the naming scheme) and its exit-code constants.
 */
export { generateSdk, type SdkLanguage } from "./generate.js"
export {
  type ArgPlan,
  type CommandPlan,
  type ExitCodePlan,
  type FlagPlan,
  type OutputMethodPlan,
  planSdk,
  type SdkPlan,
} from "./plan.js"
export { generatePythonSdk } from "./python/render.js"
export { generateTypeScriptSdk } from "./typescript/render.js"
