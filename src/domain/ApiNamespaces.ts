import { Schema } from "effect"

/** `GET /api/namespaces`: the registered namespaces and those of the daemons the supervisor knows. */
export const NamespaceEntry = Schema.Struct({
  name: Schema.String,
  /** The project directory it was registered with; null for a namespace only known from daemons. */
  dir: Schema.NullOr(Schema.String),
  registered: Schema.Boolean,
  /** Qualified IDs of the daemons of this namespace the supervisor knows. */
  daemons: Schema.Array(Schema.String),
}).annotations({ identifier: "NamespaceEntry" })

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
