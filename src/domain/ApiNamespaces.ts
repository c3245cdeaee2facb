import { Schema } from "effect"

/** `GET /api/namespaces`: the known projects' namespaces and those of the daemons the supervisor knows. */
export const NamespaceEntry = Schema.Struct({
  name: Schema.String,
  /** The project directory; null for a namespace only known from daemons. */
  dir: Schema.NullOr(Schema.String),
  /** Registered with `POST /api/namespaces`. */
  registered: Schema.Boolean,
  /** Why the project is known: global, noted (a CLI ran there), registered, config ([namespaces]). */
  sources: Schema.Array(Schema.String),
  /** Qualified IDs of the daemons of this namespace the supervisor knows or its project configures. */
  daemons: Schema.Array(Schema.String),
  /**
   * What is wrong with the project's files now (file:line: key: message, and the fix); its last
   * good configuration stays in force meanwhile. Null when they are valid.
   */
  problem: Schema.NullOr(Schema.String),
}).annotations({ identifier: "NamespaceEntry" })
export type NamespaceEntry = typeof NamespaceEntry.Type

/** `POST /api/namespaces` body. */
export const NamespaceRegistration = Schema.Struct({ dir: Schema.String }).annotations({
  identifier: "NamespaceRegistration",
})

/** `POST`/`DELETE /api/namespaces`: a control result, with the namespace when it worked. */
export const NamespaceResult = Schema.Struct({
  ok: Schema.Boolean,
  error: Schema.optional(Schema.String),
  namespace: Schema.optional(Schema.Struct({ name: Schema.String, dir: Schema.String })),
}).annotations({ identifier: "NamespaceResult" })

/** `GET /api/proxies`: the configured slugs (the `[slugs]` table of the global config). */
export const ProxyEntry = Schema.Struct({
  slug: Schema.String,
  /** The daemon the slug points at (qualified ID). */
  daemon_id: Schema.String,
  dir: Schema.String,
  /** The proxy address; null: this supervisor does not run a reverse proxy (yet). */
  proxy_url: Schema.NullOr(Schema.String),
}).annotations({ identifier: "ProxyEntry" })
