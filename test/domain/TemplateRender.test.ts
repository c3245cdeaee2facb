import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { renderTemplateValue, settingText } from "../../src/domain/TemplateRender.js"
import { testTemplateScope } from "../../src/testing/templateScope.js"

const scope = testTemplateScope({
  id: "shop/api",
  dir: "/srv/shop",
  ports: [4000, 4001],
  daemons: {
    "shop/db": { ports: [5432], proxyUrl: null },
    "shop/web": { ports: [3000], proxyUrl: "http://web.localhost:7080" },
    "other/cache": { ports: [6379] },
  },
  settings: { proxy: { enable: true, https: false, tld: "test" }, general: { interval: "15s" } },
  env: { HOME: "/home/me", EMPTY: "" },
})
const render = (value: string, syntax: "strict" | "shell" = "strict") =>
  renderTemplateValue("run", value, scope, syntax)
const rendered = (value: string) => Either.getOrThrow(render(value))
const failure = (value: string) => Either.getOrThrow(Either.flip(render(value)))

describe("renderTemplateValue: every name", () => {
  it.each([
    ["{{ daemon.id }}", "shop/api"],
    ["{{ daemon.name }}", "api"],
    ["{{ daemon.namespace }}", "shop"],
    ["{{ daemon.dir }}", "/srv/shop"],
    ["{{ daemon.instance }}", "1"],
    ["{{ daemon.port }}", "4000"],
    ["{{ daemon.ports[0] }}", "4000"],
    ["{{ daemon.ports[1] }}", "4001"],
    ["{{ daemons.db.port }}", "5432"],
    ["{{ daemons.other/cache.port }}", "6379"],
    ["{{ daemons.api.port }}", "4000"],
    ["{{ daemons.web.proxy_url }}", "http://web.localhost:7080"],
    ["{{ env.HOME }}", "/home/me"],
    ["[{{ env.EMPTY }}]", "[]"],
    ["{{ settings.proxy.tld }}", "test"],
    ["{{ settings.proxy.enable }}", "true"],
    ["{{ settings.general.interval }}", "15s"],
    ["{{ settings.general.shell }}", "sh -c"],
    ["{{ settings.supervisor.events_retained }}", "2000"],
  ])("%s renders %j", (value, text) => {
    expect(rendered(value)).toBe(text)
  })

  it("renders several placeholders in one value, each as often as written", () => {
    expect(rendered("{{daemon.name}}@{{ daemon.dir }}:{{ daemon.port }}/{{ daemon.port }}")).toBe(
      "api@/srv/shop:4000/4000",
    )
  })
})

describe("renderTemplateValue: what cannot be rendered names the key and why", () => {
  it.each([
    [
      "{{ daemons.nope.port }}",
      "unknown_daemon",
      "cannot render {{ daemons.nope.port }}: no daemon shop/nope is known to the supervisor (start it first)",
    ],
    [
      "{{ daemons.db.proxy_url }}",
      "no_proxy_url",
      "cannot render {{ daemons.db.proxy_url }}: daemon shop/db has no proxy URL: no slug names it (add one with `supervisor proxy add`)",
    ],
    [
      "{{ daemon.ports[2] }}",
      "no_port",
      "cannot render {{ daemon.ports[2] }}: daemon shop/api has 2 ports (ports[0] to ports[1])",
    ],
    [
      "{{ env.NOPE }}",
      "unset_env",
      "cannot render {{ env.NOPE }}: NOPE is not set in the daemon's environment",
    ],
    [
      "{{ daemon.nmae }}",
      "unknown_variable",
      'unknown template variable "daemon.nmae"; did you mean {{ daemon.name }}?',
    ],
  ])("%s: %s", (value, reason, message) => {
    expect(failure(value)).toMatchObject({
      _tag: "TemplateError",
      key: "run",
      template: value,
      reason,
      message: `run ${JSON.stringify(value)}: ${message}`,
    })
  })

  it("a daemon without ports, and a proxy that is off, say so", () => {
    const bare = testTemplateScope({ daemons: { "app/db": { proxyUrl: null } } })
    const fail = (value: string) =>
      Either.getOrThrow(Either.flip(renderTemplateValue("hooks.on_ready", value, bare, "shell")))
    expect(fail("{{ daemon.port }}").message).toBe(
      'hooks.on_ready "{{ daemon.port }}": cannot render {{ daemon.port }}: daemon app/web has no port (set `port` on it)',
    )
    expect(fail("{{ daemons.db.proxy_url }}").message).toBe(
      'hooks.on_ready "{{ daemons.db.proxy_url }}": cannot render {{ daemons.db.proxy_url }}: daemon app/db has no proxy URL: the proxy is off (set settings.proxy.enable = true)',
    )
  })

  it("in shell syntax other braces are kept and need no values", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
    expect(Either.getOrThrow(render("echo ${HOME} {} '{{.Names}}' {{ daemon.port }}", "shell"))).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
      "echo ${HOME} {} '{{.Names}}' 4000",
    )
  })
})

describe("settingText", () => {
  it("writes a setting as a file does; an unset proxy port is the one the proxy uses", () => {
    const s = testTemplateScope({}).settings!
    expect(settingText(s, "supervisor.stop_timeout")).toBe("5s")
    expect(settingText(s, "proxy.port")).toBe("7443")
    expect(settingText(s, "supervisor.user")).toBe("")
  })
})
