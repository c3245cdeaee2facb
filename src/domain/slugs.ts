// Slugs (`[slugs]` of the user config) resolved against the daemons: which daemon a slug names,
// which slug names a daemon, and the proxy's view of every slug (`GET /api/proxies`).
import * as nodePath from "node:path"
import type { ApiDaemonEntry } from "./ApiDaemonEntry.js"
import type { ProxyEntry } from "./ApiNamespaces.js"
import { nameProblem } from "./Name.js"
import { type EffectiveProxy, proxyUrlOf, slugUrl } from "./proxyUrl.js"
import type { ResolvedSlug } from "./ResolvedConfig.js"
import { worktreeHostLabel } from "./Worktree.js"

export type Slugs = Readonly<Record<string, ResolvedSlug>>

/** A slug is one DNS label's worth of ASCII: letters, digits, `_` and `-`. */
export const SLUG_PATTERN = /^[A-Za-z0-9_-]+$/

/**
 * Why `name` cannot be a slug, or undefined when it can: a name (no `--`, no dash at either end)
 * of ASCII letters, digits, `_` and `-` only, since it becomes a host name's first label.
 */
export const slugProblem = (name: string): string | undefined => {
  const problem =
    nameProblem(name) ??
    (SLUG_PATTERN.test(name) ? undefined : 'may only contain ASCII letters, digits, "_" and "-"')
  return problem === undefined ? undefined : `${problem} (a slug matches [A-Za-z0-9_-]+)`
}

/** The project directory of a configuration file: its directory, or the parent of `.config/`. */
export const projectRootOf = (source: string): string => {
  const dir = nodePath.dirname(nodePath.resolve(source))
  return nodePath.basename(dir) === ".config" ? nodePath.dirname(dir) : dir
}

/** What a slug is matched against: a daemon's name, the file that configures it, its worktree. */
export interface Sourced {
  readonly id: { readonly name: string }
  readonly source: string | null
  /** A worktree daemon: its label and the same project directory in the main checkout. */
  readonly worktree?: { readonly name: string; readonly main: string | null } | undefined
}

/** Whether `entry` is the daemon `slug` names: the same daemon name, configured in the slug's directory. */
export const namesDaemon = (slug: ResolvedSlug, entry: Sourced): boolean =>
  entry.source !== null &&
  entry.id.name === slug.daemon &&
  projectRootOf(entry.source) === nodePath.resolve(slug.dir)

/**
 * Whether `entry` is the daemon `slug` names in one of the project's worktrees: the same daemon
 * name, in a worktree of the slug's directory (docs/worktrees.md).
 */
const namesWorktreeDaemon = (slug: ResolvedSlug, entry: Sourced): boolean =>
  entry.worktree?.main != null &&
  entry.id.name === slug.daemon &&
  entry.worktree.main === nodePath.resolve(slug.dir)

/** The slug naming `entry` (the first by name when several do), its own or its main checkout's; or null. */
export const slugOf = (entry: Sourced, slugs: Slugs): string | null =>
  Object.keys(slugs)
    .sort()
    .find((name) => namesDaemon(slugs[name]!, entry) || namesWorktreeDaemon(slugs[name]!, entry)) ?? null

/** The host label of `entry` through the proxy: its slug, `<worktree>.<slug>` in a worktree; or null. */
export const hostLabelOf = (entry: Sourced, slugs: Slugs): string | null => {
  const slug = slugOf(entry, slugs)
  return slug === null ? null : worktreeHostLabel(slug, entry.worktree?.name)
}

/**
 * `feature-x.shop` typed where a daemon ID goes: the worktree's label and the slug, as in the
 * host name `feature-x.shop.localhost` (docs/worktrees.md); undefined when `input` is no such
 * pair (a label holds no dot, so the first dot parts them).
 */
export const worktreeSlugOf = (
  input: string,
  slugs: Slugs,
): { readonly label: string; readonly slug: string } | undefined => {
  const dot = input.indexOf(".")
  if (dot <= 0 || input.includes("/")) return undefined
  const slug = input.slice(dot + 1)
  return Object.hasOwn(slugs, slug) ? { label: input.slice(0, dot), slug } : undefined
}

/** The configured slug a host label names: exact first, else the one equal ignoring case (hosts are case-insensitive). */
export const findSlug = (slugs: Slugs, label: string): string | undefined =>
  Object.hasOwn(slugs, label)
    ? label
    : Object.keys(slugs).find((s) => s.toLowerCase() === label.toLowerCase())

/** The daemon `slug` names among `entries`, or undefined (unknown slug, or no such daemon known). */
export const slugTarget = (
  slug: string,
  slugs: Slugs,
  entries: ReadonlyArray<ApiDaemonEntry>,
): ApiDaemonEntry | undefined => {
  const s = slugs[slug]
  return s === undefined ? undefined : entries.find((e) => namesDaemon(s, e))
}

/** The entries with their `slug` and `proxy_url` filled (the URL only while the proxy is enabled). */
export const withSlugs = <E extends ApiDaemonEntry>(
  entries: ReadonlyArray<E>,
  slugs: Slugs,
  proxy: EffectiveProxy,
): Array<E> =>
  entries.map((e) => {
    const slug = slugOf(e, slugs)
    return { ...e, slug, proxy_url: proxyUrlOf(hostLabelOf(e, slugs), proxy) }
  })

/** `GET /api/proxies`: every slug, sorted, with its target daemon when one is known. */
export const proxyEntries = (
  slugs: Slugs,
  entries: ReadonlyArray<ApiDaemonEntry>,
  proxy: EffectiveProxy,
): Array<ProxyEntry> =>
  Object.keys(slugs)
    .sort()
    .map((slug) => {
      const s = slugs[slug]!
      const target = slugTarget(slug, slugs, entries)
      return {
        slug,
        dir: s.dir,
        daemon: s.daemon,
        daemon_id: target?.id.qualified ?? null,
        status: target?.status.type ?? null,
        port: target === undefined ? null : (target.active_port ?? target.resolved_port[0] ?? null),
        url: slugUrl(slug, proxy),
        proxy_url: proxy.enable ? slugUrl(slug, proxy) : null,
      }
    })
