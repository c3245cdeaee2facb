// A template scope for tests: daemon app/web in /srv/app with the given ports, other daemons'
// ports and proxy URLs by qualified ID, default settings and the given environment.
import { Schema } from "effect"
import { Settings } from "../domain/Settings.js"
import type { TemplateScope, TemplateTarget } from "../domain/TemplateRender.js"

export const testTemplateScope = (options: {
  readonly id?: string
  readonly dir?: string
  readonly ports?: ReadonlyArray<number>
  readonly daemons?: Readonly<Record<string, Partial<TemplateTarget>>>
  readonly settings?: unknown
  readonly env?: Readonly<Record<string, string | undefined>>
}): TemplateScope => {
  const id = options.id ?? "app/web"
  const [namespace, name] = id.split("/") as [string, string]
  return {
    daemon: {
      id,
      name,
      namespace,
      dir: options.dir ?? "/srv/app",
      instance: "1",
      ports: options.ports ?? [],
    },
    daemons: (other) => {
      const d = options.daemons?.[other]
      return d === undefined ? undefined : { ports: d.ports ?? [], proxyUrl: d.proxyUrl ?? null }
    },
    settings: Schema.decodeUnknownSync(Settings)(options.settings ?? {}),
    env: options.env ?? {},
  }
}
