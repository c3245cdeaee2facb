import { Schema } from "effect"
import { StatusType } from "./DaemonStatus.js"

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
  gone: Schema.Boolean.annotations({
    description:
      "The project directory no longer exists (a removed worktree): `supervisor worktree prune` stops its daemons and forgets it",
  }),
  worktree: Schema.NullOr(Schema.String).annotations({
    description: "The worktree the project directory is (docs/worktrees.md); null for a main checkout",
  }),
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

/** `GET /api/proxies`: the configured slugs (the `[slugs]` table of the user config) and their targets. */
export const ProxyEntry = Schema.Struct({
  slug: Schema.String,
  dir: Schema.String.annotations({ description: "The project directory the slug points at" }),
  daemon: Schema.String.annotations({ description: "The daemon's name in that project" }),
  daemon_id: Schema.NullOr(Schema.String).annotations({
    description: "The daemon's qualified ID; null when the supervisor knows no such daemon in that directory",
  }),
  status: Schema.NullOr(StatusType).annotations({
    description: "The daemon's status; null when the daemon is not known",
  }),
  port: Schema.NullOr(Schema.Int).annotations({
    description:
      "The port the proxy forwards to: the active port, else the first resolved port; null when none",
  }),
  url: Schema.String.annotations({
    description: "The slug's address through the proxy: <scheme>://<slug>.<tld>:<port>",
  }),
  proxy_url: Schema.NullOr(Schema.String).annotations({
    description: "The same address while the proxy is enabled (`proxy.enable`); null otherwise",
  }),
}).annotations({ identifier: "ProxyEntry" })
export type ProxyEntry = typeof ProxyEntry.Type
