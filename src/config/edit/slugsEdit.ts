// `proxy add` and `proxy remove`: a slug's line in the `[slugs]` table of the user's
// configuration, added or removed with the format-preserving editors (tomlEdit.ts, daemonEdit.ts).
import type { ResolvedSlug } from "../../domain/ResolvedConfig.js"
import type { ConfigLocation } from "../discover.js"
import { parseConfigText } from "../parseFile.js"
import { expandPath } from "../paths.js"
import { dropEmptyTable, type EditProblem, removeEntry } from "./daemonEdit.js"
import { setTomlValue, tomlValueText } from "./tomlEdit.js"

/** The slugs the text declares (`dir` expanded as the loader expands it), by name; {} when it is not TOML. */
export const declaredSlugs = (
  location: ConfigLocation,
  text: string,
  home: string,
): Readonly<Record<string, ResolvedSlug>> => {
  const parsed = parseConfigText(location, text)
  const out: Record<string, ResolvedSlug> = {}
  for (const [slug, value] of Object.entries(parsed.slugs ?? {})) {
    const v = value as { dir?: unknown; daemon?: unknown }
    if (typeof v.dir !== "string") continue
    out[slug] = {
      dir: expandPath(v.dir, location.baseDir, home),
      daemon: typeof v.daemon === "string" ? v.daemon : slug,
    }
  }
  return out
}

/** The inline table of a slug: `{ dir = "...", daemon = "..." }`. */
export const slugValueText = (target: ResolvedSlug): string =>
  `{ dir = ${tomlValueText(target.dir)}, daemon = ${tomlValueText(target.daemon)} }`

export type SlugAdded =
  | { readonly _tag: "Added"; readonly text: string }
  /** The slug is already there with this very target: nothing to write. */
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Refused"; readonly problem: string; readonly hint?: string }

/**
 * The text with `slug = { dir, daemon }` in its `[slugs]` table (the table appended when there
 * is none). A slug already there with another target is refused: it is removed first.
 */
export const addSlug = (
  location: ConfigLocation,
  text: string,
  home: string,
  slug: string,
  target: ResolvedSlug,
): SlugAdded => {
  const existing = declaredSlugs(location, text, home)[slug]
  if (existing !== undefined) {
    if (existing.dir === target.dir && existing.daemon === target.daemon) return { _tag: "Unchanged" }
    return {
      _tag: "Refused",
      problem: `slug ${JSON.stringify(slug)} already names daemon ${existing.daemon} in ${existing.dir}`,
      hint: `remove it first with \`supervisor proxy remove ${slug}\`, or choose another slug`,
    }
  }
  const edited = setTomlValue(text, ["slugs", slug], slugValueText(target))
  return edited._tag === "Left"
    ? { _tag: "Refused", problem: `cannot add it: ${edited.left}` }
    : { _tag: "Added", text: edited.right }
}

/**
 * The text without slug `slug` (every other byte kept, but a `[slugs]` header left empty), or why
 * not (`missing`: it is not there).
 */
export const removeSlug = (text: string, slug: string): { text: string } | { problem: EditProblem } => {
  const removed = removeEntry(text, "slugs", slug, `slug ${JSON.stringify(slug)} is not declared here`)
  return "text" in removed ? { text: dropEmptyTable(removed.text, "slugs") } : removed
}
