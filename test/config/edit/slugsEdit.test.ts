import { describe, expect, it } from "vitest"
import type { ConfigLocation } from "../../../src/config/discover.js"
import { addSlug, declaredSlugs, removeSlug } from "../../../src/config/edit/slugsEdit.js"

const home = "/home/u"
const location: ConfigLocation = {
  path: "/home/u/.config/supervisor/config.toml",
  level: "user",
  local: false,
  baseDir: "/home/u/.config/supervisor",
}
const target = { dir: "/w/shop", daemon: "web" }
const added = (text: string, slug = "shop", t = target) => {
  const r = addSlug(location, text, home, slug, t)
  if (r._tag !== "Added") throw new Error(`not added: ${JSON.stringify(r)}`)
  return r.text
}

describe("proxy add: a slug written into [slugs]", () => {
  it("appends a [slugs] table to a file without one, keeping every other byte", () => {
    const before = "# mine\n[settings.web]\nbind_port = 4000 # keep\n"
    expect(added(before)).toBe(`${before}\n[slugs]\nshop = { dir = "/w/shop", daemon = "web" }\n`)
    expect(added("")).toBe('[slugs]\nshop = { dir = "/w/shop", daemon = "web" }\n')
  })

  it("adds a line to an existing [slugs] table; removing it gives the file back byte for byte", () => {
    const before = [
      "# slugs of my projects",
      "[slugs]",
      "# the API",
      'api = { dir = "~/src/api" }   # aligned',
      "",
      "[settings.general]",
      'interval = "5s"',
      "",
    ].join("\n")
    const after = added(before)
    expect(after).toBe(
      before.replace("# aligned\n", '# aligned\nshop = { dir = "/w/shop", daemon = "web" }\n'),
    )
    expect(declaredSlugs(location, after, home)).toEqual({
      api: { dir: "/home/u/src/api", daemon: "api" },
      shop: target,
    })
    expect(removeSlug(after, "shop")).toEqual({ text: before })
  })

  it("removes a slug written as its own table, with the comments above it, and nothing else", () => {
    const before =
      '[settings.web]\nbind_port = 1\n\n# shop\n[slugs.shop]\ndir = "/w/shop"\n\n[slugs.api]\ndir = "/w/api"\n'
    expect(removeSlug(before, "shop")).toEqual({
      text: '[settings.web]\nbind_port = 1\n\n[slugs.api]\ndir = "/w/api"\n',
    })
  })

  it("removing the last slug drops the [slugs] header added with it: the file as it was", () => {
    const before = "# mine\n[settings.web]\nbind_port = 4000 # keep\n"
    expect(removeSlug(added(before), "shop")).toEqual({ text: before })
    expect(removeSlug(added(""), "shop")).toEqual({ text: "" })
    // a header with the user's comments, or followed by another table, is handled as such
    const commented = '# my slugs\n[slugs]\nshop = { dir = "/w/shop" }\n'
    expect(removeSlug(commented, "shop")).toEqual({ text: "# my slugs\n[slugs]\n" })
    const inner = '[slugs] # keep\nshop = { dir = "/w/shop" }\n'
    expect(removeSlug(inner, "shop")).toEqual({ text: "[slugs] # keep\n" })
    const middle = '[slugs]\nshop = { dir = "/w/shop" }\n\n[settings.web]\nbind_port = 1\n'
    expect(removeSlug(middle, "shop")).toEqual({ text: "[settings.web]\nbind_port = 1\n" })
    const more = '[slugs]\nshop = { dir = "/w/shop" }\napi = { dir = "/w/api" }\n'
    expect(removeSlug(more, "shop")).toEqual({ text: '[slugs]\napi = { dir = "/w/api" }\n' })
  })

  it("an identical slug is unchanged; another target is refused naming proxy remove", () => {
    const text = added("")
    expect(addSlug(location, text, home, "shop", target)).toEqual({ _tag: "Unchanged" })
    const other = addSlug(location, text, home, "shop", { dir: "/w/other", daemon: "web" })
    expect(other._tag).toBe("Refused")
    expect(other).toMatchObject({ hint: expect.stringContaining("supervisor proxy remove shop") })
  })

  it("refuses a file that is not TOML, and a missing slug", () => {
    expect(addSlug(location, "[slugs\n", home, "shop", target)._tag).toBe("Refused")
    expect(removeSlug("[slugs]\n", "shop")).toMatchObject({ problem: { kind: "missing" } })
    expect(removeSlug("[slugs\n", "shop")).toMatchObject({ problem: { kind: "syntax" } })
  })
})
