// YAML parsing for `import compose`: its own bundle (dist/import-yaml.cjs, scripts/build.mjs), so
// the CLI's bundle does not carry the `yaml` library that only this command needs.
import { parse } from "yaml"

/** The document, or the parser's message (with its line and column). */
export const parseYaml = (text: string): { readonly value: unknown } | { readonly error: string } => {
  try {
    return { value: parse(text) as unknown }
  } catch (e) {
    return { error: ((e as Error).message.split("\n")[0] ?? String(e)).replace(/:$/, "") }
  }
}
