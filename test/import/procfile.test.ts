import { describe, expect, it } from "vitest"
import { ImportFailed, renderToml } from "../../src/import/model.js"
import { importProcfile } from "../../src/import/procfile.js"
import { useSandbox } from "../config/helpers.js"
import { daemon, loadImported, ok, warnedKeys } from "./helpers.js"

const sandbox = useSandbox()

describe("import procfile", () => {
  it("maps each name: command line to a daemon that the config loader loads", async () => {
    const imported = ok(
      importProcfile(
        "# processes\nweb: bundle exec puma -C config/puma.rb\n\nworker:  node worker.js --queue=default\n",
        "Procfile",
      ),
    )
    expect(imported.warnings).toEqual([])
    expect(renderToml(imported, "Procfile")).toBe(
      [
        "# Imported from Procfile by `supervisor import`.",
        "",
        "[daemons.web]",
        'run = "bundle exec puma -C config/puma.rb"',
        "",
        "[daemons.worker]",
        'run = "node worker.js --queue=default"',
        "",
      ].join("\n"),
    )
    const config = await loadImported(sandbox(), imported)
    expect(daemon(config, "web").run).toBe("bundle exec puma -C config/puma.rb")
    expect(daemon(config, "worker").run).toBe("node worker.js --queue=default")
  })

  it("warns about lines it cannot read and names it has to change", async () => {
    const imported = ok(
      importProcfile("web: serve -p $PORT\nnot a process line\nmy..app: ./app\nempty:\n", "Procfile"),
    )
    expect(warnedKeys(imported)).toEqual(["line 2", "line 3", "line 4"])
    expect(imported.warnings[1]!.message).toContain('imported as "my.app"')
    const config = await loadImported(sandbox(), imported)
    expect(Object.keys(config.daemons).sort()).toEqual(["proj/my.app", "proj/web"])
  })

  it("gives a command that reads $PORT a port, 5000 + 100 per process in file order, as foreman", async () => {
    const imported = ok(
      importProcfile(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
        "web: node server.js --port $PORT\nworker: ./work\nadmin: serve -p ${PORT} admin\nbad line\nrpc: ./rpc --listen=$PORT\n",
        "Procfile",
      ),
    )
    expect(warnedKeys(imported)).toEqual(["line 4"])
    expect(imported.daemons.map((d) => [d.id, d.keys.find(([k]) => k === "port")?.[1]])).toEqual([
      ["web", 5000],
      ["worker", undefined],
      ["admin", 5200],
      ["rpc", 5300],
    ])
    const config = await loadImported(sandbox(), imported)
    expect(daemon(config, "web").port).toMatchObject({ expect: [5000] })
    expect(daemon(config, "admin").port).toMatchObject({ expect: [5200] })
    expect(daemon(config, "worker").port).toBeUndefined()
  })

  it("does not take a longer name such as $PORTS for $PORT", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
    const imported = ok(importProcfile("web: ./web $PORTS ${PORT_X}\n", "Procfile"))
    // biome-ignore lint/suspicious/noTemplateCurlyInString: literal shell syntax, not a template
    expect(imported.daemons[0]!.keys).toEqual([["run", "./web $PORTS ${PORT_X}"]])
  })

  it("gives a name taken twice a suffix, with a warning", () => {
    const imported = ok(importProcfile("web: ./a\nweb: ./b\n", "Procfile"))
    expect(imported.daemons.map((d) => d.id)).toEqual(["web", "web-2"])
    expect(imported.warnings).toEqual([
      { key: "line 2", message: '"web" is taken by another process: imported as "web-2"' },
    ])
  })

  it("fails naming the file when no process is found", () => {
    const r = importProcfile("# nothing\n", "/p/Procfile")
    expect(r).toBeInstanceOf(ImportFailed)
    expect((r as ImportFailed).message).toContain("/p/Procfile: no process found")
  })
})
