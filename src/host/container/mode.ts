// Whether `supervisor supervisor run` is in container mode (docs/container.md): `--container`,
// `settings.supervisor.container`, or by itself when it is the container's PID 1.
import { Data } from "effect"
import type { ContainerLogFormat } from "../../domain/ContainerLogLine.js"

/** The flags of `supervisor supervisor run` about container mode. */
export interface ContainerFlags {
  readonly container: boolean
  /** `--log-format`: how the daemons' lines are printed (default `text`). */
  readonly logFormat?: ContainerLogFormat | undefined
  readonly exitOnFailure: boolean
}

export interface ContainerMode {
  readonly logFormat: ContainerLogFormat
  /** `--exit-on-failure`: a daemon that fails for good stops everything, and the exit status is 1. */
  readonly exitOnFailure: boolean
  /** What turned it on, for the supervisor's first line. */
  readonly why: "--container" | "settings.supervisor.container" | "PID 1"
}

/** Container-mode flags given to a supervisor that is not in container mode. */
export class ContainerFlagsInvalid extends Data.TaggedError("ContainerFlagsInvalid")<{
  readonly flags: ReadonlyArray<string>
}> {
  override get message() {
    return `${this.flags.join(" and ")} only apply in container mode: add --container (or set settings.supervisor.container = true)`
  }
}

/** Container mode as the flags, the setting and the pid say; undefined when it is off. */
export const containerMode = (
  flags: ContainerFlags,
  setting: boolean,
  pid: number,
): ContainerMode | ContainerFlagsInvalid | undefined => {
  const why = flags.container
    ? "--container"
    : setting
      ? "settings.supervisor.container"
      : pid === 1
        ? "PID 1"
        : undefined
  if (why === undefined) {
    const given = [
      ...(flags.logFormat === undefined ? [] : ["--log-format"]),
      ...(flags.exitOnFailure ? ["--exit-on-failure"] : []),
    ]
    return given.length === 0 ? undefined : new ContainerFlagsInvalid({ flags: given })
  }
  return { logFormat: flags.logFormat ?? "text", exitOnFailure: flags.exitOnFailure, why }
}
