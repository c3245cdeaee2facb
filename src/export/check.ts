import { spawn } from "node:child_process"
import { Effect } from "effect"
import type { ExportCheck } from "../domain/ExportOutput.js"
import type { ExportTarget } from "./model.js"

// `supervisor export TARGET --check` (docs/export.md#check): the target's own validator, the first
// of its list that is installed (and, for kubectl, has a cluster to ask), run on the written files.

/** What a validator said: which one ran, or none and how to install one (the `check` of `--json`). */
export type CheckResult = typeof ExportCheck.Type

interface Validator {
  /** As it is named in the output: the command line without the files. */
  readonly name: string
  /** A cheap command that succeeds when the validator is installed. */
  readonly probe: ReadonlyArray<string>
  /** The command line for the files (paths relative to the directory they are in). */
  readonly argv: (files: ReadonlyArray<string>) => ReadonlyArray<string>
  /** Output that means the validator could not do its work here (no cluster): the next is tried. */
  readonly unusable?: RegExp
}

interface TargetCheck {
  readonly validators: ReadonlyArray<Validator>
  readonly install: string
}

const CHECKS: Readonly<Record<ExportTarget, TargetCheck>> = {
  systemd: {
    validators: [
      {
        name: "systemd-analyze verify",
        probe: ["systemd-analyze", "--version"],
        argv: (files) => ["systemd-analyze", "verify", "--man=no", ...files.map((f) => `./${f}`)],
      },
    ],
    install: "install systemd-analyze to check the units (Debian: apt-get install systemd)",
  },
  compose: {
    validators: [
      {
        name: "docker compose config",
        probe: ["docker", "compose", "version"],
        argv: (files) => ["docker", "compose", ...files.flatMap((f) => ["-f", f]), "config", "-q"],
      },
      {
        name: "podman-compose config",
        // Debian 12's podman-compose (1.0.3) has no `config` command: it is passed over
        probe: ["podman-compose", "config", "--help"],
        argv: (files) => ["podman-compose", ...files.flatMap((f) => ["-f", f]), "config"],
      },
      {
        name: "docker-compose config",
        probe: ["docker-compose", "version"],
        argv: (files) => ["docker-compose", ...files.flatMap((f) => ["-f", f]), "config", "-q"],
      },
    ],
    install:
      "install Docker Compose or a podman-compose with a config command to check the compose file (Debian: apt-get install docker-compose)",
  },
  kubernetes: {
    validators: [
      {
        name: "kubeconform -strict",
        probe: ["kubeconform", "-v"],
        argv: (files) => ["kubeconform", "-strict", "-summary", ...files],
      },
      {
        name: "kubectl apply --dry-run=client --validate=strict",
        probe: ["kubectl", "version", "--client"],
        argv: (files) => [
          "kubectl",
          "apply",
          "--dry-run=client",
          "--validate=strict",
          ...files.flatMap((f) => ["-f", f]),
        ],
        unusable:
          /connection refused|couldn't get current server API|failed to download openapi|no configuration has been provided/,
      },
    ],
    install:
      "install kubeconform (https://github.com/yannh/kubeconform/releases) to check the manifests offline, or point kubectl at a cluster",
  },
  nomad: {
    validators: [
      {
        name: "nomad job validate",
        probe: ["nomad", "version"],
        // one job per file; `-json` reads the JSON form the export writes
        argv: (files) => [
          "sh",
          "-c",
          'for f; do nomad job validate -json "$f" || exit 1; done',
          "sh",
          ...files,
        ],
      },
    ],
    install: "install Nomad to check the jobs (https://developer.hashicorp.com/nomad/install)",
  },
}

/** Runs `argv` in `dir`: its exit status (null: it could not start) and its output, both streams. */
const run = (argv: ReadonlyArray<string>, dir: string) =>
  Effect.async<{ readonly status: number | null; readonly output: string }>((resume) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const add = (chunk: Buffer) => {
      output += chunk.toString("utf8")
    }
    child.stdout.on("data", add)
    child.stderr.on("data", add)
    child.once("error", () => resume(Effect.succeed({ status: null, output })))
    child.once("close", (code) => resume(Effect.succeed({ status: code, output })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Checks the export's `files` (paths relative to `dir`) with the first usable validator of `target`. */
export const checkExport = (
  target: ExportTarget,
  dir: string,
  files: ReadonlyArray<string>,
): Effect.Effect<CheckResult> =>
  Effect.gen(function* () {
    const check = CHECKS[target]
    for (const v of check.validators) {
      if ((yield* run(v.probe, dir)).status !== 0) continue
      const r = yield* run(v.argv(files), dir)
      if (r.status !== 0 && v.unusable?.test(r.output) === true) continue
      return { _tag: "Checked", validator: v.name, ok: r.status === 0, output: r.output.trim() } as const
    }
    return { _tag: "NoValidator", install: check.install } as const
  })
