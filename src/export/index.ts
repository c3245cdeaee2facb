import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { exportCompose } from "./compose.js"
import { exportKubernetes, type KubernetesOptions } from "./kubernetes.js"
import type { ExportResult, ExportTarget } from "./model.js"
import { exportNomad } from "./nomad.js"
import { exportSystemd } from "./systemd.js"

export { EXPORT_TARGETS, type ExportResult, type ExportTarget } from "./model.js"

/** The merged configuration in one target's files, with a warning for everything left out. */
export const exportConfig = (
  target: ExportTarget,
  config: ResolvedConfig,
  options: KubernetesOptions = {},
): ExportResult =>
  target === "systemd"
    ? exportSystemd(config)
    : target === "compose"
      ? exportCompose(config)
      : target === "kubernetes"
        ? exportKubernetes(config, options)
        : exportNomad(config)
