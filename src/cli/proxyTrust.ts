import { Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"

// `supervisor proxy trust|untrust`: the proxy's local CA in the system's trust store. docs/proxy.md (HTTPS and trust).
const load = () => import("./actions/proxyTrust.js")

const dryRun = Options.boolean("dry-run").pipe(Options.withDescription("print the commands, run nothing"))

export const trustCommand = Command.make("trust", { dryRun }, ({ dryRun }) =>
  lazy(load, (m) => m.change("trust", dryRun)),
).pipe(
  Command.withDescription(
    "install the proxy's local CA into the system trust store (update-ca-certificates, update-ca-trust, macOS keychain); prints what it runs",
  ),
)

export const untrustCommand = Command.make("untrust", { dryRun }, ({ dryRun }) =>
  lazy(load, (m) => m.change("untrust", dryRun)),
).pipe(
  Command.withDescription("remove the proxy's local CA from the system trust store; prints what it runs"),
)
