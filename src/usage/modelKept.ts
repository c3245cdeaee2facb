import { Schema } from "effect"

/** A KDL value as written: string, number, boolean or null. */
export const KdlScalar = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)
export type KdlScalar = typeof KdlScalar.Type

/**
 * What a node says in the usage language that supervisor accepts and writes back (`spec fmt`)
 * without acting on it: properties (a child node with one value is read as the same property)
 * and child nodes, kept as KDL text. See docs/usage-spec.md for which ones these are.
 */
export const Kept = Schema.Struct({
  props: Schema.Array(Schema.Tuple(Schema.String, KdlScalar)),
  nodes: Schema.Array(Schema.String),
})
export type Kept = typeof Kept.Type
