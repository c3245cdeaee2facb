import { Effect, Layer } from "effect"
import { makeStorageHealth, StorageHealth } from "../state/StorageHealth.js"

/**
 * The storage health for tests: the real record, without the one-second probe timer (a test
 * tries the probes with `probe`). `now` gives the time its problems are stamped with.
 */
export const makeFakeStorageHealth = (now?: () => number) => makeStorageHealth(now)

/** `makeFakeStorageHealth` as a layer, for as long as its scope. */
export const StorageHealthFake = Layer.scoped(StorageHealth, makeFakeStorageHealth())

/** Provides a fresh fake storage health (in the caller's scope) to `effect`. */
export const withFakeStorageHealth = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideServiceEffect(effect, StorageHealth, makeFakeStorageHealth())
