import { Context, Effect, Layer, Stream, SubscriptionRef } from "effect"
import type { Settings } from "../domain/Settings.js"
import { ProjectRegistry } from "./ProjectRegistry.js"

/**
 * The supervisor's global settings as they are now: those of the global config files (and the
 * supervisor's environment), read again with the registry's reloads, so that an edited setting
 * takes effect without a restart.
 */
export interface LiveSettingsShape {
  readonly current: Effect.Effect<Settings>
  /** The settings now, then after each change. */
  readonly changes: Stream.Stream<Settings>
}

export class LiveSettings extends Context.Tag("supervisor/LiveSettings")<LiveSettings, LiveSettingsShape>() {}

/** Settings that follow a SubscriptionRef (tests set it to change them). */
export const liveSettingsOf = (ref: SubscriptionRef.SubscriptionRef<Settings>): LiveSettingsShape => ({
  current: SubscriptionRef.get(ref),
  changes: ref.changes,
})

/** The global settings of the registry's snapshot. */
export const LiveSettingsLive = Layer.effect(
  LiveSettings,
  Effect.map(ProjectRegistry, (registry) => ({
    current: Effect.map(SubscriptionRef.get(registry.snapshot), (s) => s.settings),
    changes: registry.snapshot.changes.pipe(Stream.map((s) => s.settings)),
  })),
)
