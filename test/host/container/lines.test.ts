import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ContainerLogLine } from "../../../src/domain/ContainerLogLine.js"
import { formatLogTimestamp, type LogEntry } from "../../../src/domain/LogEntry.js"
import { makeLabels, renderLine } from "../../../src/host/container/lines.js"

const at = Date.UTC(2026, 0, 2, 3, 4, 5)
const entry = (daemon_id: string, message: string, extra: Partial<LogEntry> = {}): LogEntry => ({
  id: 1,
  timestamp: formatLogTimestamp(at),
  daemon_id,
  message,
  ...extra,
})

describe("container mode's lines", () => {
  it("are `name | line` in text", () => {
    expect(renderLine("text", "web", entry("app/web", "listening on :8080"))).toBe(
      "web | listening on :8080\n",
    )
  })

  it("are one ContainerLogLine JSON object each in json, with the level and fields a log_format parsed", () => {
    const text = renderLine(
      "json",
      "web",
      entry("app/web", '{"level":"warn","msg":"slow"}', { level: "warn", fields: { msg: "slow" } }),
    )
    expect(text.endsWith("\n")).toBe(true)
    expect(text.trimEnd()).not.toContain("\n")
    const line = Schema.decodeUnknownSync(ContainerLogLine)(JSON.parse(text))
    expect(line).toEqual({
      daemon: "app/web",
      name: "web",
      time: "2026-01-02T03:04:05Z",
      message: '{"level":"warn","msg":"slow"}',
      level: "warn",
      fields: { msg: "slow" },
    })
    expect(JSON.parse(renderLine("json", "db", entry("app/db", 'a "quoted"\tline')))).toEqual({
      daemon: "app/db",
      name: "db",
      time: "2026-01-02T03:04:05Z",
      message: 'a "quoted"\tline',
    })
  })

  it("name a daemon by its name, by its qualified ID while another namespace has a daemon of that name", () => {
    const labels = makeLabels()
    labels.add("app/web")
    labels.add("app/db")
    expect(labels.of("app/web")).toBe("web")
    labels.add("admin/web")
    expect(labels.of("app/web")).toBe("app/web")
    expect(labels.of("admin/web")).toBe("admin/web")
    expect(labels.of("app/db")).toBe("db")
  })
})
