// esbuild plugin: a Deferred of Effect's (made for every `Deferred.make`, every fiber awaited,
// every taker waiting on a Queue or PubSub, every memoised layer) was an object literal spreading
// Effect's prototype into it, with a `commit` method of its own. V8 gave each such object a
// hidden class of its own: ~0.9 KiB of heap a Deferred, 300-600 of them in a supervisor
// (docs/benchmarks.md, memory per subsystem). Here each is made from one shared prototype that
// holds the same members (the spread, the type id and `commit`), with `state` and `blockingOn`
// its own fields as before: what a Deferred is (`isDeferred`, `isEffect`), does and yields stays.
import { sourcePatch } from "./source-patch.mjs"

const target = /[\\/]effect[\\/]dist[\\/]esm[\\/]internal[\\/]core\.js$/

export const lightDeferreds = sourcePatch({
  name: "light-deferreds",
  target,
  find: `export const deferredUnsafeMake = fiberId => {
  const _deferred = {
    ...CommitPrototype,
    [deferred.DeferredTypeId]: deferred.deferredVariance,
    state: MutableRef.make(deferred.pending([])),
    commit() {
      return deferredAwait(this);
    },
    blockingOn: fiberId
  };
  return _deferred;
};`,
  replace: `const DeferredPrototype = {
  ...CommitPrototype,
  [deferred.DeferredTypeId]: deferred.deferredVariance,
  commit() {
    return deferredAwait(this);
  }
};
export const deferredUnsafeMake = fiberId => {
  const _deferred = Object.create(DeferredPrototype);
  _deferred.state = MutableRef.make(deferred.pending([]));
  _deferred.blockingOn = fiberId;
  return _deferred;
};`,
})
