// A project checked out more than once (docs/worktrees.md): a git linked worktree, a jj workspace,
// or a copy named with `worktree = "..."`. Each checkout gets its own namespace, port offset and
// proxy hostnames; the main checkout keeps the plain ones.
import { Schema } from "effect"

/** How a checkout was found to be a second one. */
export const WorktreeKind = Schema.Literal("git", "jj", "copy").annotations({
  description:
    'How the checkout was recognised: "git" (a linked worktree), "jj" (a workspace) or "copy" (`worktree = "..."` in its config)',
})
export type WorktreeKind = typeof WorktreeKind.Type

/** The worktree a daemon's project directory lies in. */
export const Worktree = Schema.Struct({
  name: Schema.String.annotations({
    description: "The worktree's label: lower-case letters, digits, _ and - (a host name label)",
  }),
  kind: WorktreeKind,
  main: Schema.NullOr(Schema.String).annotations({
    description:
      "The same project directory in the main checkout; null when unknown (a copy, or a bare repository)",
  }),
  offset: Schema.Int.annotations({
    description: "How far its daemons' declared ports are moved from the main checkout's",
  }),
}).annotations({ identifier: "Worktree" })
export type Worktree = typeof Worktree.Type

/** A worktree as `list --json` shows it on a daemon. */
export const WorktreeEntry = Schema.Struct({
  name: Worktree.fields.name,
  kind: WorktreeKind,
  main: Worktree.fields.main,
}).annotations({ identifier: "WorktreeEntry" })
export type WorktreeEntry = typeof WorktreeEntry.Type

/** A daemon's worktree as `list --json` shows it. */
export const worktreeEntryOf = (w: Worktree): WorktreeEntry => ({ name: w.name, kind: w.kind, main: w.main })

/**
 * A worktree's name as one host-name label and namespace part: lower case, runs of anything but
 * letters, digits and `_` become one `-`, no dash at either end; `worktree` when nothing is left.
 */
export const worktreeLabel = (name: string): string => {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "")
  return label === "" ? "worktree" : label
}

/** The namespace of a project's worktree: the project's name, a dot, the worktree's label. */
export const worktreeNamespace = (project: string, label: string): string => `${project}.${label}`

/** Offsets are multiples of this: a daemon's ports keep their spacing and their last digits. */
const OFFSET_STEP = 100
/** How many different offsets there are (100 to 5000). */
const OFFSET_SLOTS = 50

/** FNV-1a, 32 bits: a stable hash of the label, the same on every machine and run. */
const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/**
 * The port offset of a worktree: 100 to 5000 in steps of 100, from a hash of its label, so that
 * the same worktree gets the same ports every time and two worktrees rarely share an offset (a
 * port still taken is bumped past when the daemon starts).
 */
export const worktreeOffset = (label: string): number => OFFSET_STEP * (1 + (fnv1a(label) % OFFSET_SLOTS))

/** The highest TCP port. */
const MAX_PORT = 65535

/**
 * How far a daemon's declared ports move in a worktree: up by the offset, or down when up would
 * pass 65535 (and down stays above 1023); 0 when neither fits. `ports` are the daemon's declared
 * ports and `ready_port`, which move together.
 */
export const portDelta = (ports: ReadonlyArray<number>, offset: number): number => {
  if (ports.length === 0 || offset === 0) return 0
  if (Math.max(...ports) + offset <= MAX_PORT) return offset
  if (Math.min(...ports) - offset >= 1024) return -offset
  return 0
}

/** Host-name label of a checkout's slug: `<worktree>.<slug>` for a worktree, the slug for the main one. */
export const worktreeHostLabel = (slug: string, worktree: string | undefined): string =>
  worktree === undefined ? slug : `${worktree}.${slug}`
