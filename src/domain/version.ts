import pkg from "../../package.json" with { type: "json" }

export const VERSION: string = pkg.version

/**
 * A request header of `POST /api/commands`: the version the sender was built with. A supervisor of
 * another version refuses the command (409 `VersionMismatch`) before doing anything, so that the
 * quick client (src/quick/start.ts) leaves it to the full CLI, which says what to do.
 */
export const VERSION_HEADER = "x-supervisor-version"
