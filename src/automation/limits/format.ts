import { BINARY_UNITS, formatByteSize, SI_UNITS } from "../../domain/ByteSize.js"

/** The limit as the config writes it, with a space: `80 MB`, `512 MiB`. */
const spelled = (bytes: number): string => formatByteSize(bytes).replace(/^([\d.]+)/, "$1 ")

/** A measured size in the unit family of `limit` (binary when it is written in KiB, MiB...): `161.2 MB`. */
export const formatMeasured = (bytes: number, limit: number): string => {
  const units = /iB$/.test(formatByteSize(limit)) ? BINARY_UNITS : SI_UNITS
  const unit = units.find(([, size]) => bytes >= size)
  return unit === undefined ? `${bytes} B` : `${(bytes / unit[1]).toFixed(1)} ${unit[0]}`
}

/** The kill message of the memory limit: `killed: memory 161.2 MB over memory_limit 80 MB`. */
export const memoryMessage = (bytes: number, limit: number): string =>
  `killed: memory ${formatMeasured(bytes, limit)} over memory_limit ${spelled(limit)}`

/** The kill message of the CPU limit: `killed: cpu 187% over cpu_limit 50% for 3 samples`. */
export const cpuMessage = (percent: number, limit: number, samples: number): string =>
  `killed: cpu ${Math.round(percent)}% over cpu_limit ${limit}% for ${samples} sample${samples === 1 ? "" : "s"}`
