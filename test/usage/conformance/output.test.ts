import { describe, expect, it } from "vitest"
import { accepts, at, kdl, rejects } from "./helpers.js"

// The output declarations as usage folds them: lib/src/spec/output.rs (resolve_cmd,
// effective_outputs and the tests an_inherited_boolean_selector_stops_with_its_non_global_flag,
// a_root_boolean_selector_still_has_to_name_a_flag) and lib/src/spec/exit_code.rs
// (effective_exit_codes); docs/spec/reference/output.md.

describe("folding, not failing", () => {
  it("drops an inherited boolean select whose flag does not reach a subcommand", () => {
    const spec = accepts(
      kdl(
        'name "ex"',
        'flag "--json"',
        'output "text" default=#true',
        'output "json" framing="json" select="--json"',
        'cmd "nested"',
      ),
    )
    expect(spec.root.outputs[1]!.selector).toEqual({ kind: "present", flag: "--json" })
    expect(at(spec, "nested").outputs.map((o) => [o.name, o.selector])).toEqual([
      ["text", null],
      ["json", null],
    ])
  })

  it("still requires a select= written on a command to name one of its flags", () => {
    expect(rejects(kdl('name "ex"', 'output "json" framing="json" select="--json"'))).toEqual([
      'spec.kdl:2: ex: output "json": select="--json" is not a flag of this command (this command has no flags)',
    ])
  })

  it("takes hide=#true on an output that was not inherited as a hidden output, in no list", () => {
    const spec = accepts(
      kdl(
        'name "ex"',
        'flag "--format <F>"',
        'select "--format"',
        'output "text"',
        'output "debug" hide=#true',
      ),
    )
    expect(spec.root.outputs.map((o) => o.name)).toEqual(["text"])
    expect(spec.root.flags[0]!.arg?.choices?.map((c) => c.value)).toEqual(["text"])
  })

  it("folds an output declared twice in one command: the later one wins, in place", () => {
    const spec = accepts(
      kdl('name "ex"', 'output "json" help="first"', 'output "text"', 'output "json" help="second"'),
    )
    expect(spec.root.outputs.map((o) => [o.name, o.help])).toEqual([
      ["json", "second"],
      ["text", undefined],
    ])
  })

  it("folds an exit code declared twice in one command: the later one wins, in place", () => {
    const spec = accepts(kdl('name "ex"', 'exit_code 0 "ok"', 'exit_code 1 "error"', 'exit_code 0 "success"'))
    expect(spec.root.exit_codes).toEqual([
      { code: 0, description: "success" },
      { code: 1, description: "error" },
    ])
  })
})

describe("still rejected", () => {
  // output.rs test two_defaults_are_an_error; an_unknown_framing_names_the_ones_that_exist.
  it("rejects two defaults and an unknown framing", () => {
    expect(
      rejects(
        kdl(
          'name "ex"',
          'cmd "ls" { output "a" default=#true; output "b" default=#true framing="protobuf"; }',
        ),
      ),
    ).toEqual([
      'spec.kdl:2: ex ls: output "b": framing "protobuf" is not one of text, json, jsonl',
      'spec.kdl:2: ex ls: output "a": more than one default output ("a", "b"); mark exactly one default=#true',
    ])
  })

  // exit_code.rs tests a_code_outside_a_byte_says_what_a_shell_would_report, a_code_needs_a_description.
  it("rejects an exit code outside a byte and one without a description", () => {
    expect(rejects(kdl('name "ex"', 'exit_code 256 "nope"', 'exit_code 1 ""'))).toEqual([
      "spec.kdl:2: ex: exit_code 256: exit code 256 is outside 0-255: a shell sees only the low byte of an exit status (256 would read as 0)",
      "spec.kdl:3: ex: exit_code 1: exit code 1 needs a non-empty description",
    ])
  })

  // output.rs, SpecOutput::parse: `schema` may also be a property.
  it("takes a schema as a property too", () => {
    expect(
      accepts(kdl('name "ex"', `output "json" framing="json" schema=#"{"type":"object"}"#`)).root.outputs[0]!
        .schema,
    ).toBe('{"type":"object"}')
  })
})
