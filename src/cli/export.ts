import { Args, Command, Options } from "@effect/cli"
import { lazy } from "./lazy.js"
import { json } from "./options.js"

// The targets of src/export/model.ts (EXPORT_TARGETS), spelled here so that the CLI's start-up
// does not load the exporters.
const TARGETS = ["systemd", "compose", "kubernetes", "nomad"] as const

/** `supervisor export systemd|compose|kubernetes|nomad [--out DIR] [--image IMAGE] [--force] [--check] [--json]`. */
export const exportCommand = Command.make(
  "export",
  {
    target: Args.choice(
      TARGETS.map((t) => [t, t] as const),
      { name: "target" },
    ).pipe(Args.withDescription("the format: systemd, compose, kubernetes or nomad")),
    out: Options.directory("out").pipe(
      Options.withDescription(
        "write the files into this directory (created if missing) instead of printing them",
      ),
      Options.optional,
    ),
    image: Options.text("image").pipe(
      Options.withDescription(
        "compose and kubernetes: the image of the daemons' containers, holding their programs (default debian:stable-slim); a daemon's export.image wins",
      ),
      Options.optional,
    ),
    force: Options.boolean("force").pipe(Options.withDescription("with --out: replace files that exist")),
    check: Options.boolean("check").pipe(
      Options.withDescription(
        "run the target's own validator on the files (systemd-analyze, docker compose, kubeconform or kubectl, nomad) and say which ran",
      ),
    ),
    json,
  },
  (o) =>
    lazy(
      () => import("./actions/export.js"),
      (m) => m.exportTo(o),
    ),
).pipe(
  Command.withDescription(
    "turn the merged configuration into systemd user units, a compose file, Kubernetes manifests or Nomad jobs",
  ),
)
