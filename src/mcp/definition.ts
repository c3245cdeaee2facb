/**
 * What the CLI hands the MCP server bundle (src/mcp/server.ts): plain data and promise-returning
 * functions, so the two bundles (each with its own copy of Effect) share no Effect values.
 */

/** A JSON Schema document, as `JSONSchema.make` produces it. */
export type JsonSchemaObject = { readonly type: "object" } & Record<string, unknown>

export interface ToolAnnotations {
  readonly title: string
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

export interface ToolResult {
  /** The text content: the JSON of `structured`, or the command's error output. */
  readonly text: string
  readonly structured?: Record<string, unknown>
  readonly isError: boolean
}

export interface ToolDefinition {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonSchemaObject
  readonly outputSchema: JsonSchemaObject
  readonly annotations: ToolAnnotations
  readonly call: (args: Record<string, unknown>) => Promise<ToolResult>
}

export interface ResourceEntry {
  readonly uri: string
  readonly name: string
  readonly title: string
  readonly description: string
  readonly mimeType: string
}

/** A follower of the supervisor's daemon state changes, started by `McpDefinition.watch`. */
export interface Watcher {
  /** Settles once the first attempt to follow the event stream opened it or failed. */
  readonly opened: Promise<void>
  readonly stop: () => void
}

export interface McpDefinition {
  readonly version: string
  readonly instructions: string
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly resources: {
    readonly list: () => Promise<ReadonlyArray<ResourceEntry>>
    readonly read: (
      uri: string,
    ) => Promise<{ readonly uri: string; readonly mimeType: string; readonly text: string }>
  }
  /**
   * Follows the supervisor's event stream, calling `onDaemonChanged` with the qualified ID of each
   * daemon whose state changes, until stopped (for resource subscriptions).
   */
  readonly watch?: (onDaemonChanged: (id: string) => void) => Watcher
}
