import { Context } from "effect"
import type { ResolvedSlug } from "../domain/ResolvedConfig.js"
import type { Settings } from "../domain/Settings.js"

/** What the supervisor process was started with. */
export interface SupervisorConfigShape {
  readonly settings: Settings
  /** The base environment of every daemon (the supervisor's own). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The `[slugs]` table of the global config (`GET /api/proxies`). */
  readonly slugs?: Readonly<Record<string, ResolvedSlug>>
}
export class SupervisorConfig extends Context.Tag("supervisor/SupervisorConfig")<
  SupervisorConfig,
  SupervisorConfigShape
>() {}
