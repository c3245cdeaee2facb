// The variables a daemon gets for its ports, at a start and in every export (docs/ports.md).

/** `PORT` = the first port, and `PORT0`.. when there are several. */
export const portEnvironment = (ports: ReadonlyArray<number>): Record<string, string> => {
  const [first] = ports
  if (first === undefined) return {}
  const env: Record<string, string> = { PORT: String(first) }
  if (ports.length < 2) return env
  for (const [i, port] of ports.entries()) env[`PORT${i}`] = String(port)
  return env
}
