// Replicas (docs/replicas.md): `instances = N` runs N processes of one daemon, each its own
// daemon `<name>.<index>` (api.1 ... api.N): a name the naming rules, file names, API paths and
// shells all take as it is.
import { Schema } from "effect"

/** The most processes one daemon may run: more is a typo more often than a plan. */
export const MAX_INSTANCES = 64

const message = `expected a whole number of processes from 1 to ${MAX_INSTANCES} (instances = 1 runs one; ${MAX_INSTANCES} is the most)`

/** `instances = N`: how many processes of the daemon run. */
export const InstanceCount = Schema.Int.pipe(
  Schema.between(1, MAX_INSTANCES, { message: () => message }),
).annotations({ message: () => ({ message, override: true }) })

/** Which daemon an instance belongs to and which it is. */
export const InstanceOf = Schema.Struct({
  /** The qualified ID of the daemon as configured (`app/api`). */
  daemon: Schema.String.annotations({ description: "The qualified ID of the daemon it is an instance of" }),
  /** 1 to N. */
  index: Schema.Int.annotations({ description: "Which instance it is: 1 to N" }),
}).annotations({ identifier: "InstanceOf" })
export type InstanceOf = typeof InstanceOf.Type

/** An instance as the API lists it: which daemon, which index, and the count `scale` set. */
export const InstanceEntry = Schema.Struct({
  ...InstanceOf.fields,
  scaled: Schema.optional(
    Schema.Int.annotations({
      description:
        "The count of instances `supervisor scale` set for the daemon, while it is in force (until the daemon is stopped); absent when its `instances` is",
    }),
  ),
}).annotations({ identifier: "InstanceEntry" })

/** The name of a daemon's instance: `api` and 2 make `api.2`. */
export const instanceName = (name: string, index: number): string => `${name}.${index}`

/** The qualified IDs of a daemon's first `count` instances. */
export const instanceIds = (qualified: string, count: number): Array<string> =>
  Array.from({ length: count }, (_, i) => instanceName(qualified, i + 1))

/** `api.2` of `api`: the index, or undefined when `name` is no instance name of `daemon`. */
export const instanceIndexOf = (name: string, daemon: string): number | undefined => {
  if (!name.startsWith(`${daemon}.`)) return undefined
  const rest = name.slice(daemon.length + 1)
  return /^[1-9][0-9]*$/.test(rest) ? Number(rest) : undefined
}
