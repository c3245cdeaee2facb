import type { ProxyTarget } from "../route.js"

/**
 * The targets of the slugs asked for while no daemon changed: the fast path of every request
 * (one target, or the ready instances of a replicated daemon, taken in turn).
 */
export interface TargetCache {
  /** The next target in turn among `targets`, kept under `key` when `keep`. */
  readonly take: (key: string, targets: ReadonlyArray<ProxyTarget>, keep: boolean) => ProxyTarget
  /** The next kept target of `key`, if any. */
  readonly next: (key: string) => ProxyTarget | undefined
  /** The kept targets of `key`, if any, without taking a turn. */
  readonly peek: (key: string) => ReadonlyArray<ProxyTarget> | undefined
  readonly clear: () => void
}

export const targetCache = (): TargetCache => {
  const kept = new Map<string, ReadonlyArray<ProxyTarget>>()
  /** key -> the turn of its next request among its targets (round robin) */
  const turns = new Map<string, number>()
  const inTurn = (key: string, targets: ReadonlyArray<ProxyTarget>): ProxyTarget => {
    const turn = turns.get(key) ?? 0
    turns.set(key, (turn + 1) % targets.length)
    return targets[turn % targets.length]!
  }
  return {
    take: (key, targets, keep) => {
      if (keep) kept.set(key, targets)
      return inTurn(key, targets)
    },
    next: (key) => {
      const hit = kept.get(key)
      return hit === undefined ? undefined : inTurn(key, hit)
    },
    peek: (key) => kept.get(key),
    clear: () => kept.clear(),
  }
}
