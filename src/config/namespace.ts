import * as nodePath from "node:path"
import {
  type ConfigProblem,
  GlobalNamespaceRequired,
  InvalidNamespace,
  NamespaceMismatch,
} from "../domain/ConfigProblem.js"
import { GLOBAL_NAMESPACE, nameProblem } from "../domain/Name.js"
import { worktreeNamespace } from "../domain/Worktree.js"
import type { ConfigLocation } from "./discover.js"

export interface NamespaceInput {
  readonly location: ConfigLocation
  /** The file's top-level `namespace`, if set. */
  readonly declared: string | undefined
  readonly declaredLine: number | undefined
  /** The sibling non-local file's namespace, when this is a `.local` file and the sibling exists. */
  readonly sibling: { readonly namespace: string; readonly declared: string | undefined } | undefined
  /**
   * The worktree the project directory is in (docs/worktrees.md): its label, and the directory
   * name the project has in the main checkout. Absent in a main checkout.
   */
  readonly worktree?: { readonly label: string; readonly dirName: string } | undefined
}

/** A worktree's namespace: the project's, a dot and the worktree's label, when the result is a name. */
const inWorktree = (
  i: NamespaceInput,
  project: string,
  at: { readonly line?: number },
): { namespace: string } | { problem: ConfigProblem } => {
  if (i.worktree === undefined) return { namespace: project }
  const namespace = worktreeNamespace(project, i.worktree.label)
  const problem = nameProblem(namespace)
  if (problem === undefined) return { namespace }
  return {
    problem: new InvalidNamespace({
      file: i.location.path,
      ...at,
      key: "namespace",
      message: `the worktree namespace ${JSON.stringify(namespace)} is invalid: ${problem}`,
      hint: 'set a top-level namespace without a trailing "." in this file, or worktree = "<name>" in supervisor.local.toml',
    }),
  }
}

/** The spec's namespace derivation rules 1-5. */
export const deriveNamespace = (i: NamespaceInput): { namespace: string } | { problem: ConfigProblem } => {
  const file = i.location.path
  const at = i.declaredLine === undefined ? {} : { line: i.declaredLine }
  if (i.location.level !== "project") {
    // Rule 1: global files use `global`; a declared namespace must say so.
    if (i.declared !== undefined && i.declared !== GLOBAL_NAMESPACE) {
      return {
        problem: new GlobalNamespaceRequired({
          file,
          ...at,
          key: "namespace",
          message: `a global config file must use the namespace "global", not ${JSON.stringify(i.declared)}`,
          hint: 'remove the `namespace` line or set namespace = "global"',
        }),
      }
    }
    return { namespace: GLOBAL_NAMESPACE }
  }
  if (i.declared !== undefined) {
    const problem = nameProblem(i.declared)
    if (problem) {
      return {
        problem: new InvalidNamespace({
          file,
          ...at,
          key: "namespace",
          message: `invalid namespace ${JSON.stringify(i.declared)}: ${problem}`,
          hint: "use ASCII letters, digits, _, - and . only",
        }),
      }
    }
  }
  // Rule 5: a .local file shares its sibling's namespace; if both declare one, they must agree.
  if (i.location.local && i.sibling) {
    const mine = i.declared === undefined ? undefined : inWorktree(i, i.declared, at)
    if (mine !== undefined && "problem" in mine) return mine
    if (mine !== undefined && mine.namespace !== i.sibling.namespace) {
      return {
        problem: new NamespaceMismatch({
          file,
          ...at,
          key: "namespace",
          message: `namespace ${JSON.stringify(i.declared)} differs from ${JSON.stringify(i.sibling.namespace)} of ${i.location.sibling}`,
          hint: `a .local file shares its sibling's namespace: set namespace = ${JSON.stringify(i.sibling.namespace)} or remove the line`,
        }),
      }
    }
    return { namespace: i.sibling.namespace }
  }
  // Rule 2: the declared namespace, else the directory name (rule 3: the parent of .config).
  // In a worktree, the project's name gets the worktree's label (docs/worktrees.md).
  if (i.declared !== undefined) return inWorktree(i, i.declared, at)
  const dirName = i.worktree?.dirName ?? nodePath.basename(i.location.baseDir)
  const problem = nameProblem(dirName)
  if (problem) {
    return {
      problem: new InvalidNamespace({
        file,
        message: `the directory name ${JSON.stringify(dirName)} is not a valid namespace: ${problem}`,
        hint: 'set a top-level namespace in this file, e.g. namespace = "myproject"',
      }),
    }
  }
  return inWorktree(i, dirName, {})
}
