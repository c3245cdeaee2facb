// What a start's overrides (src/domain/Command.ts: `start --ready-* --expected-port --bump`) do
// to the definitions it starts.
import { DaemonConfig } from "./DaemonConfig.js"
import type { DaemonDefinition } from "./DaemonDefinition.js"
import { READY_KEYS } from "./DaemonOptions.js"

type Ready = Pick<DaemonConfig, "ready_delay" | "ready_output" | "ready_http" | "ready_port" | "ready_cmd">

/** The readiness fields set, or undefined when none is: any one replaces every configured check. */
const readyOf = (o: Partial<Ready>): Partial<Ready> | undefined => {
  const out: Record<string, unknown> = {}
  for (const key of READY_KEYS) if (o[key] !== undefined) out[key] = o[key]
  return Object.keys(out).length === 0 ? undefined : (out as Partial<Ready>)
}

/** The definition with its readiness checks replaced by the fields set in `o` (none set: as is). */
export const withReadiness = (def: DaemonDefinition, o: Partial<Ready>): DaemonDefinition => {
  const fields = readyOf(o)
  if (fields === undefined) return def
  const kept = Object.fromEntries(
    Object.entries(def.config).filter(([k]) => !(READY_KEYS as ReadonlyArray<string>).includes(k)),
  )
  return { ...def, config: new DaemonConfig({ ...(kept as unknown as DaemonConfig), ...fields }) }
}

export interface PortOverrides {
  readonly expected_ports?: ReadonlyArray<number> | undefined
  readonly bump?: boolean | number | undefined
}

/** The definition with the port overrides applied; a daemon without ports ignores a lone bump. */
export const withPorts = (def: DaemonDefinition, o: PortOverrides): DaemonDefinition => {
  if (o.expected_ports === undefined && o.bump === undefined) return def
  const current = def.config.port
  // an instance of a daemon with `instances` takes the given ports plus its index - 1, as its own
  const offset = o.expected_ports === undefined ? 0 : (def.instance?.index ?? 1) - 1
  const expect = o.expected_ports?.map((p) => p + offset) ?? current?.expect ?? []
  if (expect.length === 0) return def
  const bump = o.bump ?? current?.bump ?? false
  return { ...def, config: new DaemonConfig({ ...def.config, port: { expect, bump } }) }
}

/** Why a lone bump cannot apply (none of the daemons has ports), or undefined. */
export const bumpProblem = (defs: ReadonlyArray<DaemonDefinition>, o: PortOverrides): string | undefined =>
  o.bump !== undefined &&
  o.expected_ports === undefined &&
  !defs.some((d) => (d.config.port?.expect.length ?? 0) > 0)
    ? "--bump: none of the daemons being started has ports; set `port` in its config or add --expected-port"
    : undefined

/** Both: readiness and ports. */
export const withOverrides = (def: DaemonDefinition, o: Partial<Ready> & PortOverrides): DaemonDefinition =>
  withPorts(withReadiness(def, o), o)
