import { describe, expect, it } from "vitest"
import { exprSyntaxError } from "../../../src/usage/exprSyntax.js"
import { accepts, at, kdl, rejects } from "./helpers.js"

// Rules usage (jdx/usage) enforces on values, argument shapes, groups and help templates, each
// from the source that states it.

describe("delimiter (arg.rs, flag.rs, cmd.rs)", () => {
  it("is one ASCII character, on a flag or arg that takes several values", () => {
    accepts(kdl('bin "x"', 'flag "--tags <tag>" var=#true delimiter=","', 'arg "[ports]..." delimiter=","'))
    expect(
      rejects(
        kdl(
          'bin "x"',
          'flag "--a <v>" var=#true delimiter="§"',
          'flag "--b <v>" var=#true delimiter=",,"',
          'flag "--c" var=#true delimiter=","',
          'flag "--d <v>" delimiter=","',
          'arg "<e>" delimiter=","',
          'arg "[f]..." delimiter="、"',
        ),
      ),
    ).toEqual([
      'spec.kdl:2: x: flag "--a <v>": delimiter: a delimiter is one byte, and "§" is more than one; use an ASCII separator',
      'spec.kdl:3: x: flag "--b <v>": delimiter: a delimiter is one character, and ",," is not',
      'spec.kdl:4: x: flag "--c": delimiter: `delimiter` splits a value, and flag --c takes none (add <VALUE> to its usage)',
      'spec.kdl:5: x: flag "--d <v>": delimiter: flag --d has a delimiter and holds one value; add `var=#true` for the values it splits into',
      'spec.kdl:6: x: arg "<e>": delimiter: argument <e> has a delimiter and holds one value; add `var=#true` for the values it splits into',
      'spec.kdl:7: x: arg "[f]...": delimiter: a delimiter is one byte, and "、" is more than one; use an ASCII separator',
    ])
  })
})

describe("fixed-arity placeholders (arg.rs)", () => {
  it("take exactly as many values as they name", () => {
    const spec = accepts(
      kdl(
        'bin "x"',
        'cmd "range" { arg "<start> <end>"; }',
        'cmd "opt" { arg "-- [a] [b]" var_min=2 var_max=2; }',
      ),
    )
    expect(at(spec, "range").args[0]).toMatchObject({
      name: "start",
      required: true,
      variadic: true,
      var_min: 2,
      var_max: 2,
    })
    expect(at(spec, "opt").args[0]).toMatchObject({ name: "a", required: false, double_dash: "required" })
  })

  it("refuse mixed requiredness and bounds other than their count", () => {
    expect(
      rejects(
        kdl(
          'bin "x"',
          'arg "<start> [end]"',
          'arg "<a> <b>" var_min=1 var_max=2',
          'arg "<c>" { value_names "x" "y" "z"; var_max 3; }',
          'flag "--r <lo> [hi]"',
        ),
      ),
    ).toEqual([
      'spec.kdl:2: x: arg "<start> [end]": "<start> [end]": fixed-arity placeholders must be either all required (<a> <b>) or all optional ([a] [b])',
      'spec.kdl:3: x: arg "<a> <b>": 2 value names require var_min=2 and var_max=2 (got var_min=1 and var_max=2); drop both or make them 2',
      'spec.kdl:4: x: arg "<c>": 3 value names require var_min=3 and var_max=3 (got no var_min and var_max=3); drop both or make them 3',
      'spec.kdl:5: x: flag "--r <lo> [hi]": flag "--r <lo> [hi]": fixed-arity placeholders must be either all required (<a> <b>) or all optional ([a] [b])',
    ])
  })
})

describe("group (group.rs)", () => {
  it("names at least two members, as arguments or flag children", () => {
    accepts(
      kdl(
        'bin "x"',
        'flag "--file <f>"',
        'flag "--url <u>"',
        'group "input" "--file" required=#true { flag "--url"; }',
      ),
    )
    expect(
      rejects(
        kdl('bin "x"', 'group "solo" "--file"', 'group "none"', 'group "bad" "--a" "--b" exclusive=#true'),
      ),
    ).toEqual([
      'spec.kdl:2: x: group "solo": group solo needs at least two arguments (it has 1); a rule about one argument belongs on it (required=#true, conflicts=...)',
      'spec.kdl:3: x: group "none": group none needs at least two arguments (it has 0); a rule about one argument belongs on it (required=#true, conflicts=...)',
      'spec.kdl:4: x: group "bad": unknown property exclusive=#true (known: required, multiple)',
    ])
  })
})

describe("validate (arg.rs with usage-validation's check)", () => {
  it("takes expressions in usage's validation language", () => {
    for (const e of [
      "int(value) > 0",
      "int(value) >= 1 && int(value) <= 65535",
      "value startsWith 'release-'",
      "value matches '^v[0-9]+$'",
      'value in ["a", "b"] or len(value) > 3',
      "not (value contains 'x') ? true : false",
      "all(split(value, ','), {# != ''})",
      "let n = int(value); n % 2 == 0",
      "value not in ['x'] && value?.size ?? 0 == 0",
      "int(value) in 1..10 and float(value) ** 2 < 1e3",
    ])
      expect([e, exprSyntaxError(e)]).toEqual([e, undefined])
  })

  it("refuses a malformed expression, and validate_error without validate", () => {
    expect(
      rejects(
        kdl(
          'bin "x"',
          'arg "<port>" validate="int(value) >"',
          'arg "<name>" validate="value startsWith \'x"',
          'arg "<tag>" validate="(value == 1"',
          'arg "<n>" validate_error="must be positive"',
        ),
      ),
    ).toEqual([
      'spec.kdl:2: x: arg "<port>": validate: invalid validation expression "int(value) >": unexpected end of expression',
      `spec.kdl:3: x: arg "<name>": validate: invalid validation expression "value startsWith 'x": unterminated string at column 18`,
      'spec.kdl:4: x: arg "<tag>": validate: invalid validation expression "(value == 1": expected ), got the end of the expression',
      'spec.kdl:5: x: arg "<n>": validate_error requires a validate expression (validate="int(value) > 0")',
    ])
  })
})

describe("help_template (help_template.rs)", () => {
  it("places only the named sections", () => {
    accepts(
      kdl('bin "x"', 'help_template "{{about}}\\n{{ usage }}\\n{{flags}}{{args}}{{commands}}{{after_help}}"'),
    )
    expect(rejects(kdl('bin "x"', 'about "x"', 'help_template "{{usage}}\\n{{options}}"'))).toEqual([
      'spec.kdl:3: help_template: names no section "options"; a page is assembled from about, usage, commands, args, flags, after_help (clap\'s {options} is {{flags}} here and its {positionals} is {{args}})',
    ])
    expect(rejects(kdl('bin "x"', 'help_template "{{usage"'))).toEqual([
      "spec.kdl:2: help_template: a {{ with no }} after it; the sections are about, usage, commands, args, flags, after_help",
    ])
  })
})
