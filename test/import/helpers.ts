import { expect } from "vitest"
import type { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"
import { type Imported, ImportFailed, renderToml } from "../../src/import/model.js"
import { loadOk, type Sandbox } from "../config/helpers.js"

/** The importer's result, failing the test when it is an error. */
export const ok = (r: Imported | ImportFailed): Imported => {
  if (r instanceof ImportFailed) throw new Error(`expected an import, got: ${r.message}`)
  return r
}

/** The TOML written for `imported`, loaded by the project's own config loader from project `proj`. */
export const loadImported = async (sb: Sandbox, imported: Imported): Promise<ResolvedConfig> => {
  const toml = renderToml(imported, "the source")
  sb.write({ "proj/supervisor.toml": toml })
  return loadOk(sb, { cwd: "proj" })
}

/** The warnings' keys. */
export const warnedKeys = (imported: Imported) => imported.warnings.map((w) => w.key)

/** The resolved daemon `proj/<name>`. */
export const daemon = (config: ResolvedConfig, name: string) => {
  const d = config.daemons[`proj/${name}`]
  expect(d, `daemon proj/${name}`).toBeDefined()
  return d!.config
}
