import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { afterEach, describe, expect, it } from "vitest"
import type { McpDefinition } from "../../src/mcp/definition.js"
import { mcpServer } from "../../src/mcp/server.js"

/** A definition with one tool and one resource, whose calls are recorded. */
const definition = (calls: Array<Record<string, unknown>>): McpDefinition => ({
  version: "1.2.3",
  instructions: "test",
  tools: [
    {
      name: "echo",
      title: "Echo",
      description: "returns its input",
      inputSchema: { type: "object", properties: { word: { type: "string" } } },
      outputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
      annotations: {
        title: "Echo",
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      call: async (args) => {
        calls.push(args)
        return { isError: false, text: JSON.stringify(args), structured: { word: String(args.word) } }
      },
    },
  ],
  resources: {
    list: async () => [
      {
        uri: "supervisor://logs/p/a",
        name: "p/a",
        title: "log of p/a",
        description: "d",
        mimeType: "text/plain",
      },
    ],
    read: async (uri) => {
      if (uri !== "supervisor://logs/p/a") throw new Error(`unknown resource ${uri}`)
      return { uri, mimeType: "text/plain", text: "one\ntwo\n" }
    },
  },
})

describe("mcpServer (the SDK's low-level Server, raw JSON Schemas)", () => {
  let close: () => Promise<void> = async () => {}
  afterEach(() => close())

  const connect = async (calls: Array<Record<string, unknown>>) => {
    const [a, b] = InMemoryTransport.createLinkedPair()
    const server = mcpServer(definition(calls))
    const client = new Client({ name: "test", version: "1" })
    await server.connect(a)
    await client.connect(b)
    close = async () => {
      await client.close()
      await server.close()
    }
    return client
  }

  it("announces itself and lists the tools with their schemas and hints as given", async () => {
    const client = await connect([])
    expect(client.getServerVersion()).toMatchObject({ name: "supervisor", version: "1.2.3" })
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(1)
    expect(tools[0]).toMatchObject({
      name: "echo",
      inputSchema: { type: "object", properties: { word: { type: "string" } } },
      annotations: { readOnlyHint: true, destructiveHint: false },
    })
  })

  it("calls a tool with its arguments and returns text and structured content", async () => {
    const calls: Array<Record<string, unknown>> = []
    const client = await connect(calls)
    const r = await client.callTool({ name: "echo", arguments: { word: "hi" } })
    expect(calls).toEqual([{ word: "hi" }])
    expect(r.structuredContent).toEqual({ word: "hi" })
    expect(r.content).toEqual([{ type: "text", text: '{"word":"hi"}' }])
    expect(r.isError).toBeUndefined()
  })

  it("answers an unknown tool with an error naming the tools", async () => {
    const client = await connect([])
    const r = await client.callTool({ name: "nosuch", arguments: {} })
    expect(r.isError).toBe(true)
    expect(r.content).toEqual([{ type: "text", text: 'unknown tool "nosuch"; the tools are: echo' }])
  })

  it("lists and reads resources", async () => {
    const client = await connect([])
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(["supervisor://logs/p/a"])
    const read = await client.readResource({ uri: "supervisor://logs/p/a" })
    expect(read.contents).toEqual([
      { uri: "supervisor://logs/p/a", mimeType: "text/plain", text: "one\ntwo\n" },
    ])
    await expect(client.readResource({ uri: "supervisor://logs/p/b" })).rejects.toThrow(/unknown resource/)
  })
})
