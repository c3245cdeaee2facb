import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { configDefinitions } from "../../src/config/definitions.js"
import { mergeDefinitions } from "../../src/control/listing.js"
import { effectiveProxy, proxyUrlOf, slugFromHost, slugUrl } from "../../src/domain/proxyUrl.js"
import { Settings } from "../../src/domain/Settings.js"
import {
  findSlug,
  projectRootOf,
  proxyEntries,
  slugOf,
  slugProblem,
  slugTarget,
  withSlugs,
  worktreeSlugOf,
} from "../../src/domain/slugs.js"
import { loadOk, toml, useSandbox } from "../config/helpers.js"

const sandbox = useSandbox()
const proxy = (p: Record<string, unknown> = {}) =>
  effectiveProxy(Schema.decodeUnknownSync(Settings)({ proxy: p }))

describe("slug names", () => {
  it("accepts ASCII letters, digits, _ and -; names the rule otherwise", () => {
    for (const ok of ["shop", "my-app_2", "A"]) expect(slugProblem(ok)).toBeUndefined()
    for (const bad of ["", "a.b", "ä", "a b", "a/b"]) expect(slugProblem(bad)).toContain("[A-Za-z0-9_-]+")
  })
})

describe("proxy URLs", () => {
  it("https on 7443 by default, http on 7080 without https, the port set otherwise; the TLD configurable", () => {
    expect(slugUrl("shop", proxy())).toBe("https://shop.localhost:7443")
    expect(slugUrl("shop", proxy({ https: false }))).toBe("http://shop.localhost:7080")
    expect(slugUrl("Shop", proxy({ port: 8443, tld: "test" }))).toBe("https://shop.test:8443")
  })

  it("a daemon's proxy_url is filled only while the proxy is enabled, and only with a slug", () => {
    expect(proxyUrlOf("shop", proxy())).toBeNull()
    expect(proxyUrlOf("shop", proxy({ enable: true }))).toBe("https://shop.localhost:7443")
    expect(proxyUrlOf(null, proxy({ enable: true }))).toBeNull()
  })
})

describe("the slug of a Host header", () => {
  it("is the one label before the TLD, port and case aside; anything else is none", () => {
    expect(slugFromHost("shop.localhost:7443", "localhost")).toBe("shop")
    expect(slugFromHost("Shop.LocalHost", "localhost")).toBe("shop")
    expect(slugFromHost("shop.localhost.", "localhost")).toBe("shop")
    expect(slugFromHost("a.shop.localhost", "localhost")).toBeUndefined()
    expect(slugFromHost("localhost:7443", "localhost")).toBeUndefined()
    expect(slugFromHost("shop.test", "localhost")).toBeUndefined()
    expect(findSlug({ Shop: { dir: "/a", daemon: "web" } }, "shop")).toBe("Shop")
    expect(findSlug({ shop: { dir: "/a", daemon: "web" } }, "nope")).toBeUndefined()
  })
})

describe("slug resolution", () => {
  it("the project directory of a file: its directory, or the parent of .config/", () => {
    expect(projectRootOf("/w/app/supervisor.toml")).toBe("/w/app")
    expect(projectRootOf("/w/app/.config/supervisor.local.toml")).toBe("/w/app")
  })

  it("a slug names the daemon of that name configured in its directory; other daemons have none", async () => {
    const sb = sandbox()
    sb.write({
      "w/app/supervisor.toml": toml("[daemons.web]", 'run = "w"', "[daemons.db]", 'run = "d"'),
      "w/other/.config/supervisor.toml": toml("[daemons.web]", 'run = "o"'),
    })
    const defs = [
      ...configDefinitions(await loadOk(sb, { cwd: "w/app" })).values(),
      ...configDefinitions(await loadOk(sb, { cwd: "w/other" })).values(),
    ]
    const entries = mergeDefinitions([], [], defs)
    const slugs = {
      shop: { dir: sb.path("w/app"), daemon: "web" },
      other: { dir: sb.path("w/other"), daemon: "web" },
      gone: { dir: sb.path("w/none"), daemon: "web" },
    }
    expect(slugTarget("shop", slugs, entries)?.id.qualified).toBe("app/web")
    expect(slugTarget("other", slugs, entries)?.id.qualified).toBe("other/web")
    expect(slugTarget("gone", slugs, entries)).toBeUndefined()
    expect(slugTarget("nope", slugs, entries)).toBeUndefined()
    const filled = withSlugs(entries, slugs, proxy({ enable: true }))
    expect(filled.map((e) => [e.id.qualified, e.slug, e.proxy_url])).toEqual([
      ["app/db", null, null],
      ["app/web", "shop", "https://shop.localhost:7443"],
      ["other/web", "other", "https://other.localhost:7443"],
    ])
    expect(withSlugs(entries, slugs, proxy()).map((e) => e.proxy_url)).toEqual([null, null, null])
    // two slugs for one daemon: the first by name
    expect(slugOf(entries[1]!, { zz: slugs.shop, aa: slugs.shop })).toBe("aa")
    expect(proxyEntries(slugs, entries, proxy())).toEqual([
      {
        slug: "gone",
        dir: sb.path("w/none"),
        daemon: "web",
        daemon_id: null,
        status: null,
        port: null,
        url: "https://gone.localhost:7443",
        proxy_url: null,
      },
      {
        slug: "other",
        dir: sb.path("w/other"),
        daemon: "web",
        daemon_id: "other/web",
        status: "available",
        port: null,
        url: "https://other.localhost:7443",
        proxy_url: null,
      },
      {
        slug: "shop",
        dir: sb.path("w/app"),
        daemon: "web",
        daemon_id: "app/web",
        status: "available",
        port: null,
        url: "https://shop.localhost:7443",
        proxy_url: null,
      },
    ])
  })
})

describe("slugs of a worktree's daemons", () => {
  it("a worktree's daemon has its main checkout's slug and the host <worktree>.<slug>; the slug's target stays the main one", async () => {
    const sb = sandbox()
    const web = toml("[daemons.web]", 'run = "w"', "port = 3000")
    sb.write({
      "shop/.git/worktrees/fx/commondir": "../..\n",
      "shop/supervisor.toml": web,
      "trees/fx/supervisor.toml": web,
    })
    sb.write({ "trees/fx/.git": `gitdir: ${sb.path("shop/.git/worktrees/fx")}\n` })
    const defs = [
      ...configDefinitions(await loadOk(sb, { cwd: "shop" })).values(),
      ...configDefinitions(await loadOk(sb, { cwd: "trees/fx" })).values(),
    ]
    const entries = mergeDefinitions([], [], defs)
    const slugs = { shop: { dir: sb.path("shop"), daemon: "web" } }
    const filled = withSlugs(entries, slugs, proxy({ enable: true, https: false }))
    expect(filled.map((e) => [e.id.qualified, e.slug, e.proxy_url, e.worktree?.name])).toEqual([
      ["shop.fx/web", "shop", "http://fx.shop.localhost:7080", "fx"],
      ["shop/web", "shop", "http://shop.localhost:7080", undefined],
    ])
    expect(slugTarget("shop", slugs, entries)?.id.qualified).toBe("shop/web")
  })
})

describe("<worktree>.<slug> typed as an ID", () => {
  const slugs = { shop: { dir: "/code/shop", daemon: "web" }, "my-app": { dir: "/code/app", daemon: "api" } }
  it("parts the worktree's label from a configured slug at the first dot", () => {
    expect(worktreeSlugOf("feature-x.shop", slugs)).toEqual({ label: "feature-x", slug: "shop" })
    expect(worktreeSlugOf("f_1.my-app", slugs)).toEqual({ label: "f_1", slug: "my-app" })
  })
  it("is none for a slug alone, an unknown slug, a qualified ID or an instance name", () => {
    expect(worktreeSlugOf("shop", slugs)).toBeUndefined()
    expect(worktreeSlugOf("feature-x.store", slugs)).toBeUndefined()
    expect(worktreeSlugOf("shop/web.2", slugs)).toBeUndefined()
    expect(worktreeSlugOf("api.2", slugs)).toBeUndefined()
    expect(worktreeSlugOf(".shop", slugs)).toBeUndefined()
  })
})
