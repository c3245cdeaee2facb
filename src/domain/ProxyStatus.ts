import { Schema } from "effect"

/** One slug as `supervisor proxy status` shows it. */
export const ProxySlugStatus = Schema.Struct({
  slug: Schema.String,
  url: Schema.String.annotations({ description: "<scheme>://<slug>.<tld>:<port>" }),
  dir: Schema.String.annotations({ description: "The project directory (~ expanded)" }),
  daemon: Schema.String.annotations({ description: "The daemon's name in that project" }),
  daemon_id: Schema.NullOr(Schema.String).annotations({
    description: "The daemon's qualified ID; null when no supervisor runs or it knows no such daemon",
  }),
  status: Schema.String.annotations({
    description: 'The daemon\'s status; "unknown" when no supervisor runs or it knows no such daemon',
  }),
  port: Schema.NullOr(Schema.Int).annotations({
    description: "The port the proxy forwards to; null when none",
  }),
}).annotations({ identifier: "ProxySlugStatus" })
export type ProxySlugStatus = typeof ProxySlugStatus.Type

/** `supervisor proxy status --json`: the proxy's settings, its CA and every slug. */
export const ProxyStatus = Schema.Struct({
  enabled: Schema.Boolean.annotations({ description: "settings.proxy.enable" }),
  scheme: Schema.Literal("https", "http"),
  host: Schema.String,
  port: Schema.Int.annotations({
    description: "The port in force (7443 with https, 7080 without, unless set)",
  }),
  tld: Schema.String,
  ca_path: Schema.String.annotations({ description: "<state dir>/proxy/ca.pem" }),
  ca_exists: Schema.Boolean,
  ca_trusted: Schema.NullOr(Schema.Boolean).annotations({
    description: "Whether the system trusts the CA; null when this cannot be told",
  }),
  supervisor_running: Schema.Boolean.annotations({
    description: "Whether a supervisor runs (the daemons' status and port come from it)",
  }),
  slugs: Schema.Array(ProxySlugStatus),
}).annotations({ identifier: "ProxyStatus" })
export type ProxyStatus = typeof ProxyStatus.Type
