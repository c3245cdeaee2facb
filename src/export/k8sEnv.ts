// A daemon's environment on Kubernetes: its env files, the top-level [env] and its env, layered as
// the supervisor does, become a ConfigMap; the variables whose names are secrets (by
// general.secret_patterns) become a Secret that holds a placeholder, never the value.
import { readFileSync } from "node:fs"
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap"
import type { IEnvFromSource } from "kubernetes-models/v1/EnvFromSource"
import type { ISecret } from "kubernetes-models/v1/Secret"
import { parseDotenv } from "../config/dotenv.js"
import type { EnvFileRef } from "../domain/EnvFile.js"
import type { ResolvedConfig, ResolvedDaemon } from "../domain/ResolvedConfig.js"
import { MASK, secretMatcher } from "../domain/secrets.js"
import type { Warnings } from "./model.js"

/** What a Secret holds in place of each value: the cluster's operator sets the real one. */
export const SECRET_PLACEHOLDER = MASK

/** The variables of `refs`, read now, a later file winning; a file that cannot be read is warned about. */
const readEnvFiles = (
  refs: ReadonlyArray<EnvFileRef>,
  below: Readonly<Record<string, string>>,
  id: string,
  w: Warnings,
): Record<string, string> => {
  const values: Record<string, string> = {}
  for (const ref of refs) {
    let text: string
    try {
      text = readFileSync(ref.path, "utf8")
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === "ENOENT"
      if (!(missing && ref.optional))
        w.add(
          id,
          "env_file",
          `(${ref.path}) cannot be read (${missing ? "no such file" : String(e)}): left out`,
        )
      continue
    }
    // `${VAR}` in a file sees the variables above it: never the environment of the exporting machine
    const parsed = parseDotenv(text, (name) => (Object.hasOwn(values, name) ? values[name] : below[name]))
    if (parsed.ok) Object.assign(values, parsed.values)
    else w.add(id, "env_file", `(${ref.path}:${parsed.error.line}) ${parsed.error.message}: left out`)
  }
  return values
}

export interface PodEnv {
  /** ConfigMap data: the variables that are not secrets. */
  readonly plain: Record<string, string>
  /** The names of the secret variables (their Secret holds placeholders). */
  readonly secret: ReadonlyArray<string>
}

/**
 * The daemon's environment in the supervisor's order (top-level env_file, [env], its env_file, its
 * env; a later layer wins). `env` is the top-level [env] and its env with their templates rendered
 * (commandAndEnv); every value is passed through `address` (loopback addresses of other daemons).
 */
export const podEnv = (
  config: ResolvedConfig,
  d: ResolvedDaemon,
  env: Readonly<Record<string, string>>,
  w: Warnings,
  address: (value: string) => string,
): PodEnv => {
  const c = d.config
  const id = d.id.qualified
  const shared = Object.fromEntries(Object.keys(c.shared_env).map((k) => [k, env[k]!]))
  const own = Object.fromEntries(Object.keys(c.env).map((k) => [k, env[k]!]))
  const merged: Record<string, string> = {}
  Object.assign(merged, readEnvFiles(c.shared_env_file, {}, id, w))
  Object.assign(merged, shared)
  Object.assign(merged, readEnvFiles(c.env_file, merged, id, w))
  Object.assign(merged, own)
  const isSecret = secretMatcher(config.settings.general.secret_patterns)
  const plain: Record<string, string> = {}
  const secret: Array<string> = []
  for (const [k, v] of Object.entries(merged)) {
    if (isSecret(k)) secret.push(k)
    else plain[k] = address(v)
  }
  if (secret.length > 0)
    w.add(
      id,
      "env",
      `(${secret.join(", ")}) are secrets by general.secret_patterns: their Secret holds the placeholder ${SECRET_PLACEHOLDER}; set the values in the cluster`,
    )
  return { plain, secret }
}

/** The ConfigMap and Secret of `env` named after `name`, and the container's `envFrom`. */
export const envObjects = (
  name: string,
  env: PodEnv,
  labels: Record<string, string>,
): { readonly objects: ReadonlyArray<IConfigMap | ISecret>; readonly envFrom: Array<IEnvFromSource> } => {
  const objects: Array<IConfigMap | ISecret> = []
  const envFrom: Array<IEnvFromSource> = []
  if (Object.keys(env.plain).length > 0) {
    objects.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `${name}-env`, labels },
      data: env.plain,
    })
    envFrom.push({ configMapRef: { name: `${name}-env` } })
  }
  if (env.secret.length > 0) {
    objects.push({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: `${name}-secret`, labels },
      type: "Opaque",
      stringData: Object.fromEntries(env.secret.map((k) => [k, SECRET_PLACEHOLDER])),
    })
    envFrom.push({ secretRef: { name: `${name}-secret` } })
  }
  return { objects, envFrom }
}
