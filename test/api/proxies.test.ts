import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeApiHarness } from "../../src/testing/apiHarness.js"

/** The user config of the harness (its SUPERVISOR_CONFIG_DIR), written as given. */
const writeUserConfig = (dir: string, text: string) => {
  const config = nodePath.join(dir, "home", ".config", "supervisor")
  fs.mkdirSync(config, { recursive: true })
  fs.writeFileSync(nodePath.join(config, "config.toml"), text)
}

/** Slugs in the daemon entries and GET /api/proxies through the real handlers, in-process. */
describe("slugs in the API (in-process)", () => {
  it.scoped(
    "entries carry their slug; proxy_url and GET /api/proxies follow the user config as it changes",
    () =>
      Effect.gen(function* () {
        const h = yield* makeApiHarness()
        const dir = h.project(
          "shop",
          'namespace = "shop"\n[daemons.web]\nrun = "exec web"\nport = 3000\n[daemons.db]\nrun = "exec db"\n',
        )
        expect((yield* h.request("POST", "/api/namespaces", { dir })).json).toMatchObject({ ok: true })
        const entry = (id: string) => h.request("GET", `/api/daemons/${encodeURIComponent(id)}`)
        expect((yield* entry("shop/web")).json).toMatchObject({ slug: null, proxy_url: null })
        expect((yield* h.request("GET", "/api/proxies")).json).toEqual([])

        writeUserConfig(h.dir, `[slugs]\nshop = { dir = ${JSON.stringify(dir)}, daemon = "web" }\n`)
        // the proxy is off: the slug, no URL
        expect((yield* entry("shop/web")).json).toMatchObject({ slug: "shop", proxy_url: null })
        expect((yield* h.request("GET", "/api/proxies")).json).toEqual([
          {
            slug: "shop",
            dir,
            daemon: "web",
            daemon_id: "shop/web",
            status: "available",
            port: 3000,
            url: "https://shop.localhost:7443",
            proxy_url: null,
          },
        ])

        writeUserConfig(
          h.dir,
          `[settings.proxy]\nenable = true\nhttps = false\ntld = "test"\n[slugs]\nshop = { dir = ${JSON.stringify(dir)}, daemon = "web" }\n`,
        )
        const listed = (yield* h.request("GET", "/api/daemons")).json as Array<{
          id: { qualified: string }
          slug: string | null
          proxy_url: string | null
        }>
        expect(listed.map((e) => [e.id.qualified, e.slug, e.proxy_url])).toEqual([
          ["shop/db", null, null],
          ["shop/web", "shop", "http://shop.test:7080"],
        ])
        expect((yield* h.request("POST", "/api/daemons/shop%2Fweb/start")).json).toEqual({ ok: true })
        expect((yield* h.request("GET", "/api/proxies")).json).toMatchObject([
          { slug: "shop", status: "running", proxy_url: "http://shop.test:7080" },
        ])
      }),
  )
})
