import type { ResolvedConfig } from "../domain/ResolvedConfig.js"
import { exportCompose } from "./compose.js"
import { exportKubernetes } from "./kubernetes.js"
import type { ExportOptions, ExportResult, ExportTarget } from "./model.js"
import { exportNomad } from "./nomad.js"
import { exportSystemd } from "./systemd.js"

export { EXPORT_TARGETS, type ExportResult, type ExportTarget } from "./model.js"

/** The merged configuration in one target's files, with a warning for everything left out. */
export const exportConfig = (
  target: ExportTarget,
  config: ResolvedConfig,
  options: ExportOptions = {},
): ExportResult =>
  target === "systemd"
    ? exportSystemd(config)
    : target === "compose"
      ? exportCompose(config, options)
      : target === "kubernetes"
        ? exportKubernetes(config, options)
        : exportNomad(config)
