/**
 * Slugs through the built CLI: `proxy add/remove/status` (+ --json) editing the user config in
 * place, a `[slugs]` table in a project file rejected, and a running supervisor that fills each
 * daemon's `slug` and `proxy_url` in GET /api/daemons, GET /api/proxies, `status` and `list`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import {
  apiGet,
  type DaemonSandbox,
  freePort,
  makeDaemonSandbox,
  STACK_LINE,
  supervisorPids,
  tableRow,
  waitFor,
} from "./harness.js"

const T = 60_000
const USER = "# my settings\n[settings.web]\nbind_port = 4000   # kept\n"

let sb: DaemonSandbox
afterEach(() => sb?.destroy())

const userFile = () => join(sb.home, ".config", "supervisor", "config.toml")
const writeUser = (text: string) => {
  mkdirSync(join(sb.home, ".config", "supervisor"), { recursive: true })
  writeFileSync(userFile(), text)
}

interface Entry {
  readonly id: { readonly qualified: string }
  readonly status: { readonly type: string }
  readonly slug: string | null
  readonly proxy_url: string | null
}
interface Proxied {
  readonly slug: string
  readonly daemon_id: string | null
  readonly status: string | null
  readonly port: number | null
  readonly url: string
  readonly proxy_url: string | null
}

describe("proxy add / remove / status", () => {
  it(
    "writes the slug under [slugs] keeping the file, refuses bad and clashing slugs, removes it byte for byte; no supervisor is started",
    () => {
      sb = makeDaemonSandbox()
      // the trust store's kind fixed, so ca_trusted is false (no CA yet) on any machine
      sb.env.SUPERVISOR_CA_TRUST_SYSTEM = "debian"
      const shop = sb.project("shop", 'namespace = "shop"\n[daemons.web]\nrun = "exec sleep 300"\n')
      const sub = join(shop, "src")
      mkdirSync(sub)
      writeUser(USER)
      // from a subdirectory: the project's root is written
      const added = sb.cli(["proxy", "add", "shop", "--daemon", "web"], sub)
      // no warning; the proxy is off in this config, and the note says how to turn it on
      expect(added.stderr).toBe(
        "note: the proxy is off: turn it on with `supervisor settings set proxy.enable true --global`\n",
      )
      expect(added.status).toBe(0)
      expect(added.stdout).toContain("https://shop.localhost:7443")
      const withSlug = readFileSync(userFile(), "utf8")
      expect(withSlug).toBe(`${USER}\n[slugs]\nshop = { dir = ${JSON.stringify(shop)}, daemon = "web" }\n`)
      // the same again: nothing changes
      expect(sb.cli(["proxy", "add", "shop", "--daemon", "web"], sub).status).toBe(0)
      expect(readFileSync(userFile(), "utf8")).toBe(withSlug)
      // another target: refused, naming proxy remove
      const clash = sb.cli(["proxy", "add", "shop", "--daemon", "db"], shop)
      expect(clash.status).toBe(1)
      expect(clash.stderr).toContain("supervisor proxy remove shop")
      expect(readFileSync(userFile(), "utf8")).toBe(withSlug)
      const bad = sb.cli(["proxy", "add", "my.shop"], shop)
      expect(bad.status).toBe(2)
      expect(bad.stderr).toContain("[A-Za-z0-9_-]+")
      expect(bad.stderr).not.toMatch(STACK_LINE)
      // a daemon the project does not configure: added, with a warning
      const api = sb.cli(["proxy", "add", "api", "--dir", shop], sb.root)
      expect(api.status).toBe(0)
      expect(api.stderr).toContain('no daemon "api" is configured in')

      const text = sb.cli(["proxy", "status"], shop)
      expect(text.status).toBe(0)
      expect(text.stdout).toContain("disabled")
      expect(tableRow(text.stdout, "shop")).toEqual([
        "shop",
        "https://shop.localhost:7443",
        "web",
        "unknown",
        "-",
        shop,
      ])
      const json = JSON.parse(sb.cli(["proxy", "status", "--json"], shop).stdout)
      expect(json).toMatchObject({
        enabled: false,
        scheme: "https",
        host: "127.0.0.1",
        port: 7443,
        tld: "localhost",
        ca_path: join(sb.stateDir, "proxy", "ca.pem"),
        ca_exists: false,
        ca_trusted: false,
        supervisor_running: false,
      })
      expect(json.slugs.map((s: { slug: string; status: string }) => [s.slug, s.status])).toEqual([
        ["api", "unknown"],
        ["shop", "unknown"],
      ])

      const typo = sb.cli(["proxy", "rm", "shp"], shop)
      expect(typo.status).toBe(1)
      expect(typo.stderr).toContain("did you mean shop?")
      expect(sb.cli(["proxy", "rm", "api"], shop).status).toBe(0)
      expect(readFileSync(userFile(), "utf8")).toBe(withSlug)
      expect(sb.cli(["proxy", "remove", "shop"], shop).status).toBe(0)
      // the last slug takes the [slugs] header it came with: the file as it was
      expect(readFileSync(userFile(), "utf8")).toBe(USER)
      expect(supervisorPids(sb.stateDir)).toEqual([])
    },
    T,
  )

  it(
    "creates the user config when there is none; a [slugs] table in a project file is a config error",
    () => {
      sb = makeDaemonSandbox()
      const shop = sb.project(
        "shop",
        '[slugs]\nshop = { dir = "." }\n[daemons.web]\nrun = "exec sleep 300"\n',
      )
      expect(existsSync(userFile())).toBe(false)
      const added = sb.cli(["proxy", "add", "web"], shop)
      expect(added.status).toBe(0)
      expect(readFileSync(userFile(), "utf8")).toBe(
        `[slugs]\nweb = { dir = ${JSON.stringify(shop)}, daemon = "web" }\n`,
      )
      const validate = sb.cli(["config", "validate"], shop)
      expect(validate.status).toBe(1)
      expect(validate.stderr).toContain("[slugs] is only read from the user-level global config")
      expect(validate.stderr).toContain(join(shop, "supervisor.toml"))
    },
    T,
  )
})

describe("the daemon entry's slug and proxy_url, with a running supervisor", () => {
  it(
    "fills GET /api/daemons, GET /api/proxies, status and list; proxy add registers the project",
    async () => {
      sb = makeDaemonSandbox()
      const port = await freePort()
      const shop = sb.project(
        "shop",
        `namespace = "shop"\n[daemons.web]\nrun = "exec sleep 300"\nport = ${port}\n[daemons.db]\nrun = "exec sleep 301"\n`,
      )
      const other = sb.project("other", 'namespace = "other"\n[daemons.api]\nrun = "exec sleep 302"\n')
      writeUser("[settings.proxy]\nenable = true\n")
      expect(sb.cli(["start", "web", "db"], shop).status).toBe(0)
      // no slug yet: list keeps its columns
      const before = sb.cli(["list"], shop)
      expect(before.stdout.split("\n")[0]).not.toContain("PROXY")

      expect(sb.cli(["proxy", "add", "shop", "--daemon", "web"], shop).status).toBe(0)
      const entries = await waitFor("the slug in GET /api/daemons", async () => {
        const all = await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons")
        return all?.find((e) => e.id.qualified === "shop/web")?.slug === "shop" ? all : undefined
      })
      expect(entries.find((e) => e.id.qualified === "shop/web")).toMatchObject({
        slug: "shop",
        proxy_url: "https://shop.localhost:7443",
      })
      expect(entries.find((e) => e.id.qualified === "shop/db")).toMatchObject({ slug: null, proxy_url: null })

      const proxies = await apiGet<Array<Proxied>>(sb.stateDir, "/api/proxies")
      expect(proxies).toEqual([
        {
          slug: "shop",
          dir: shop,
          daemon: "web",
          daemon_id: "shop/web",
          status: "running",
          port,
          url: "https://shop.localhost:7443",
          proxy_url: "https://shop.localhost:7443",
        },
      ])

      const status = sb.cli(["status", "web"], shop)
      expect(status.stdout).toContain("Slug: shop\nProxy: https://shop.localhost:7443\n")
      expect(JSON.parse(sb.cli(["status", "web", "--json"], shop).stdout)).toMatchObject({
        slug: "shop",
        proxy_url: "https://shop.localhost:7443",
      })
      const list = sb.cli(["list"], shop)
      expect(list.stdout.split("\n")[0]).toMatch(/PORTS\s+PROXY\s+RUN/)
      expect(tableRow(list.stdout, "shop/web")).toContain("https://shop.localhost:7443")
      expect(tableRow(list.stdout, "shop/db")?.at(-2)).toBe("-")
      const listed = JSON.parse(sb.cli(["list", "--json"], shop).stdout) as Array<Entry>
      expect(listed.find((e) => e.id.qualified === "shop/web")?.proxy_url).toBe("https://shop.localhost:7443")

      const proxyStatus = JSON.parse(sb.cli(["proxy", "status", "--json"], shop).stdout)
      expect(proxyStatus).toMatchObject({ enabled: true, supervisor_running: true })
      expect(proxyStatus.slugs).toEqual([
        {
          slug: "shop",
          url: "https://shop.localhost:7443",
          dir: shop,
          daemon: "web",
          daemon_id: "shop/web",
          status: "running",
          port,
        },
      ])

      // a project the supervisor never saw: registered by proxy add (run from elsewhere)
      expect(sb.cli(["proxy", "add", "api", "--dir", other], sb.root).status).toBe(0)
      const namespaces = await apiGet<Array<{ name: string; registered: boolean }>>(
        sb.stateDir,
        "/api/namespaces",
      )
      expect(namespaces?.find((n) => n.name === "other")).toMatchObject({ registered: true })
      const api = await waitFor("other/api listed with its slug", async () =>
        (await apiGet<Array<Entry>>(sb.stateDir, "/api/daemons"))?.find(
          (e) => e.id.qualified === "other/api" && e.slug === "api",
        ),
      )
      expect(api).toMatchObject({ status: { type: "available" }, proxy_url: "https://api.localhost:7443" })
    },
    T,
  )
})
