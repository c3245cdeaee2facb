// An MCP client connected to `supervisor mcp` run by the built CLI in a sandbox's project.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { BIN, type DaemonSandbox } from "./harness.js"

export const connectMcp = async (sb: DaemonSandbox, cwd: string): Promise<Client> => {
  const client = new Client({ name: "e2e", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp"],
      cwd,
      env: sb.env,
      stderr: "pipe",
    }),
  )
  return client
}
