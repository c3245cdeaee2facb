import * as fs from "node:fs"
import { Writable } from "node:stream"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js"
import type { McpDefinition, Watcher } from "./definition.js"
import { LOG_URI } from "./resources.js"

/**
 * The MCP protocol side of `supervisor mcp`, on the SDK's low-level `Server`: it takes tool
 * definitions with raw JSON Schemas (generated from Effect Schemas), so no zod is involved.
 * Its own bundle (dist/mcp.cjs), loaded only by `supervisor mcp`: it holds the SDK, and it is
 * plain promises (no Effect) so that nothing but plain data crosses between the two bundles.
 */

/**
 * The protocol's own stream on fd 1, written by the transport alone: nothing else of the server
 * writes to stdout (test/mcp/noStdout.test.ts), and a stray write to the standard output elsewhere
 * could not interleave with a message half-written here.
 */
const protocolOut = (): Writable => {
  const fd = 1
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      fs.write(fd, chunk, (error) => done(error ?? null))
    },
  })
}

/** The MCP server of `definition`, not yet connected to a transport. */
export const mcpServer = (definition: McpDefinition): Server => {
  const server = new Server(
    { name: "supervisor", version: definition.version },
    {
      capabilities: {
        tools: {},
        resources: definition.watch === undefined ? {} : { subscribe: true, listChanged: true },
      },
      instructions: definition.instructions,
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: definition.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = definition.tools.find((t) => t.name === request.params.name)
    if (tool === undefined)
      return {
        isError: true,
        content: [
          {
            type: "text" as const,
            text: `unknown tool ${JSON.stringify(request.params.name)}; the tools are: ${definition.tools.map((t) => t.name).join(", ")}`,
          },
        ],
      }
    const result = await tool.call(request.params.arguments ?? {})
    return {
      content: [{ type: "text" as const, text: result.text }],
      ...(result.structured === undefined ? {} : { structuredContent: result.structured }),
      ...(result.isError ? { isError: true } : {}),
    }
  })
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: (await definition.resources.list()).map((r) => ({ ...r })),
  }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
    contents: [{ ...(await definition.resources.read(request.params.uri)) }],
  }))
  if (definition.watch !== undefined) subscriptions(server, definition.watch)
  return server
}

/**
 * Resource subscriptions: once a client subscribes, the server follows the supervisor's events;
 * a daemon's state change sends `notifications/resources/updated` for its subscribed log and
 * `notifications/resources/list_changed` (the list describes each daemon's state).
 */
const subscriptions = (server: Server, watch: NonNullable<McpDefinition["watch"]>) => {
  const subscribed = new Set<string>()
  let watcher: Watcher | undefined
  const changed = (id: string) => {
    const uri = `${LOG_URI}${id}`
    if (subscribed.has(uri)) void server.sendResourceUpdated({ uri }).catch(() => {})
    void server.sendResourceListChanged().catch(() => {})
  }
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri)
    watcher ??= watch(changed)
    // answered once the stream is followed: a change right after the answer is not missed
    await watcher.opened
    return {}
  })
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri)
    return {}
  })
  const closed = server.onclose
  server.onclose = () => {
    watcher?.stop()
    closed?.()
  }
}

/** Serves `definition` over stdin/stdout until stdin ends. */
export const serveMcp = async (definition: McpDefinition): Promise<void> => {
  const server = mcpServer(definition)
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve)
    process.stdin.once("close", resolve)
  })
  await server.connect(new StdioServerTransport(process.stdin, protocolOut()))
  await closed
  await server.close()
}
