/**
 * The exports of the Node-API addon at `file` (dist/memory-relief.node), or undefined when it
 * cannot be loaded: not built (no compiler or no Node headers at build time), another platform.
 * Its callers check each function they need.
 */
export const addonExports = (file: string): Readonly<Record<string, unknown>> | undefined => {
  const module = { exports: {} as Record<string, unknown> }
  try {
    process.dlopen(module, file)
  } catch {
    return undefined
  }
  return module.exports
}
