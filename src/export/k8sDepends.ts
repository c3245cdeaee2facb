// `depends` on Kubernetes: an init container per dependency that holds the pod back until the
// dependency is there. A dependency with a port is awaited through its Service, which answers only
// once one of its pods passed its readinessProbe; one without a port by `kubectl wait` for its
// Deployment's Available condition; one awaited with `condition = "completed"` runs as a Job, and
// `kubectl wait` waits for its Complete condition. `kubectl` reads the cluster's API as the
// ServiceAccount WAIT_ACCOUNT, allowed by a Role to read Deployments and Jobs.
import type { IRole } from "kubernetes-models/rbac.authorization.k8s.io/v1/Role"
import type { IRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding"
import type { IContainer } from "kubernetes-models/v1/Container"
import type { IServiceAccount } from "kubernetes-models/v1/ServiceAccount"
import { awaitsExit, conditionOf } from "../domain/Dependency.js"
import type { ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { exportName, type Warnings } from "./model.js"

/** The image of the init containers that wait for a port. */
export const WAIT_PORT_IMAGE = "busybox:1.36"
/** The image of the init containers that wait with kubectl (it has no shell: kubectl is run as is). */
export const KUBECTL_IMAGE = "registry.k8s.io/kubectl:v1.33.0"
/** The ServiceAccount (with its Role and RoleBinding) of the pods that wait with kubectl. */
export const WAIT_ACCOUNT = "supervisor-export-wait"

/** The name a daemon's Service has on the cluster's network: a DNS-1035 label (starts with a letter). */
export const serviceName = (d: ResolvedDaemon): string => {
  const name = exportName(d)
  return /^[a-z]/.test(name) ? name : `s-${name}`.slice(0, 63).replace(/-+$/, "")
}

/** The daemons that some dependent awaits with `condition = "completed"` (or `completed_once`): Jobs. */
export const awaitedToComplete = (daemons: ReadonlyArray<ResolvedDaemon>): ReadonlySet<string> => {
  const out = new Set<string>()
  for (const d of daemons)
    for (const dep of d.config.depends) {
      if (awaitsExit(conditionOf(d.config, dep))) out.add(dep)
    }
  return out
}

export interface Waits {
  readonly initContainers: ReadonlyArray<IContainer>
  /** Whether an init container runs kubectl (the pod needs WAIT_ACCOUNT). */
  readonly kubectl: boolean
}

/** The init containers that wait for each dependency of `d`, in the order of `depends`. */
export const dependencyWaits = (
  d: ResolvedDaemon,
  exported: ReadonlyMap<string, ResolvedDaemon>,
  jobs: ReadonlySet<string>,
  cronJobs: ReadonlySet<string>,
  w: Warnings,
): Waits => {
  const id = d.id.qualified
  const initContainers: Array<IContainer> = []
  let kubectl = false
  const kubectlWait = (what: string, condition: string, name: string) => {
    kubectl = true
    initContainers.push({
      name: `wait-${name}`.slice(0, 63).replace(/-+$/, ""),
      image: KUBECTL_IMAGE,
      command: ["kubectl", "wait", `--for=condition=${condition}`, `${what}/${name}`, "--timeout=-1s"],
    })
  }
  for (const depId of d.config.depends) {
    const dep = exported.get(depId)
    if (dep === undefined) {
      w.add(id, "depends", `(${depId}) is not exported: the pod does not wait for it`)
      continue
    }
    const condition = conditionOf(d.config, depId)
    const name = exportName(dep)
    if (cronJobs.has(depId)) {
      w.add(id, "depends", `(${depId}) is a CronJob: a pod cannot wait for a schedule; it starts at once`)
      continue
    }
    if (jobs.has(depId)) {
      if (!awaitsExit(condition))
        w.add(
          id,
          "depends",
          `(${depId}, condition ${condition}) waits until its Job completed: another dependent awaits it completed, so it runs as a Job`,
        )
      kubectlWait("job", "Complete", name)
      continue
    }
    const port = dep.config.port?.expect[0]
    if (
      condition === "started" &&
      (dep.config.ready_http ?? dep.config.ready_port ?? dep.config.ready_cmd ?? dep.config.ready_delay) !==
        undefined
    )
      w.add(
        id,
        "depends",
        `(${depId}, condition started) waits until it is ready: a pod cannot tell started from ready`,
      )
    if (port === undefined) {
      kubectlWait("deployment", "Available", name)
      continue
    }
    const host = serviceName(dep)
    initContainers.push({
      name: `wait-${name}`.slice(0, 63).replace(/-+$/, ""),
      image: WAIT_PORT_IMAGE,
      // the Service accepts connections only once one of its pods is ready
      command: [
        "sh",
        "-c",
        `until nc -z -w 2 ${host} ${port}; do echo waiting for ${host}:${port}; sleep 1; done`,
      ],
    })
  }
  return { initContainers, kubectl }
}

/** The ServiceAccount, Role and RoleBinding that let the waiting init containers read Deployments and Jobs. */
export const waitAccount = (): readonly [IServiceAccount, IRole, IRoleBinding] => {
  const labels = { "app.kubernetes.io/managed-by": "supervisor-export" }
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: WAIT_ACCOUNT, labels } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: WAIT_ACCOUNT, labels },
      rules: [
        { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "watch"] },
        { apiGroups: ["batch"], resources: ["jobs"], verbs: ["get", "list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: WAIT_ACCOUNT, labels },
      subjects: [{ kind: "ServiceAccount", name: WAIT_ACCOUNT }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: WAIT_ACCOUNT },
    },
  ]
}
