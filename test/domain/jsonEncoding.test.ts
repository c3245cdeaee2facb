import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ApiDaemonEntry } from "../../src/domain/ApiDaemonEntry.js"
import { DaemonConfig } from "../../src/domain/DaemonConfig.js"
import { encodesAsItself, jsonEncoder } from "../../src/domain/jsonEncoding.js"
import { LogEntry, LogStreamItem } from "../../src/domain/LogEntry.js"
import { ResolvedConfig } from "../../src/domain/ResolvedConfig.js"
import { StartEvent, StartFromEvent } from "../../src/domain/StartEvent.js"

const entry: LogEntry = { id: 7, timestamp: "2026-01-31 12:00:00", daemon_id: "app/web", message: "hi" }
const events: ReadonlyArray<StartEvent> = [
  { waiting: [{ id: "app/web", what: "port 3001" }] },
  { outcome: { _tag: "Ready", id: "app/web", pid: 42, ports: [3001], expected_ports: [3000] } },
  {
    outcomes: [
      { _tag: "Completed", id: "app/once" },
      {
        _tag: "StartFailed",
        id: "app/db",
        message: "exited with code 1",
        exit_code: 1,
        signal: null,
        output: ["boom"],
        cli_status: 1,
      },
    ],
  },
]

describe("jsonEncoder", () => {
  it("knows which wire schemas encode as themselves, and which transform", () => {
    for (const s of [LogEntry, LogStreamItem, StartEvent, StartFromEvent, ApiDaemonEntry])
      expect(encodesAsItself(s.ast)).toBe(true)
    for (const s of [DaemonConfig, ResolvedConfig, Schema.NumberFromString])
      expect(encodesAsItself(s.ast)).toBe(false)
  })

  it("writes what Schema.encodeSync then JSON.stringify write", () => {
    const same = <A, I>(schema: Schema.Schema<A, I>, value: A, indent?: number) =>
      expect(jsonEncoder(schema, indent)(value)).toBe(
        JSON.stringify(Schema.encodeSync(schema)(value), null, indent),
      )
    same(LogEntry, entry)
    same(LogStreamItem, { _clear: true, _gen: 3 })
    for (const e of events) same(StartEvent, e, 2)
    same(StartFromEvent, { fallback: true })
    same(Schema.Struct({ n: Schema.NumberFromString }), { n: 5 })
    expect(jsonEncoder(Schema.Struct({ n: Schema.NumberFromString }))({ n: 5 })).toBe('{"n":"5"}')
  })

  it("start events decode back to what was encoded", () => {
    const decode = Schema.decodeUnknownSync(StartEvent)
    for (const e of events) expect(decode(JSON.parse(jsonEncoder(StartEvent)(e)))).toEqual(e)
    expect(() => decode({ fallback: true })).toThrow()
    expect(Schema.decodeUnknownSync(StartFromEvent)({ fallback: true })).toEqual({ fallback: true })
  })
})
