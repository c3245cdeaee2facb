import { describe, expect, it } from "vitest"
import { completionScript, validateArgv } from "../../../src/usage/consume/index.js"
import { accepts, kdl, rejects } from "./helpers.js"

// `choices`: lib/src/spec/choices.rs (SpecChoices::parse and its tests
// rich_choices_round_trip_and_match_their_aliases, duplicate_structured_choices_are_rejected).

describe("choices", () => {
  it("reads values as arguments and as a block of choice nodes with help, hide and aliases", () => {
    const spec = accepts(
      kdl(
        'bin "ex"',
        'arg "<color>" {',
        "  choices ignore_case=#true {",
        '    choice "always" help="Always use color" {',
        '      alias "yes"',
        '      alias "on" hide=#true',
        "    }",
        '    choice "never" hide=#true',
        "  }",
        "}",
      ),
    )
    expect(spec.root.args[0]).toMatchObject({
      ignore_case: true,
      choices: [
        {
          value: "always",
          help: "Always use color",
          aliases: [{ value: "yes" }, { value: "on", hide: true }],
        },
        { value: "never", hide: true },
      ],
    })
    // Matched without regard to case, by value or alias, hidden ones too (as choices.rs matches).
    for (const word of ["ALWAYS", "YES", "ON", "never"]) expect(validateArgv(spec, [word]).ok).toBe(true)
    expect(validateArgv(spec, ["sometimes"])).toEqual({
      ok: false,
      errors: ['<color>: "sometimes" is not one of: always'],
    })
    // A hidden choice is not offered.
    expect(completionScript(spec, "bash")).not.toContain("'never'")
  })

  it("mixes arguments and a block, arguments first", () => {
    const spec = accepts(kdl('bin "ex"', 'arg "<x>" { choices "a" "b" { choice "c" help="see"; }; }'))
    expect(spec.root.args[0]!.choices).toEqual([{ value: "a" }, { value: "b" }, { value: "c", help: "see" }])
  })

  // choices.rs: "choice `{value}` is declared more than once".
  it("rejects a choice declared twice in the block form", () => {
    expect(
      rejects(
        kdl(
          'name "ex"',
          'arg "<color>" {',
          "  choices {",
          '    choice "always"',
          '    choice "always" help="again"',
          "  }",
          "}",
        ),
      ),
    ).toEqual(['spec.kdl:5: ex: arg "<color>": choice "always": choice "always" is declared more than once'])
  })

  // choices.rs: "choices must have at least 1 argument" and "a choices block holds `choice` nodes".
  it("rejects an empty choices node and a block child other than choice", () => {
    expect(
      rejects(kdl('bin "ex"', 'arg "<a>" { choices; }', 'arg "<b>" { choices { option "x"; }; }')),
    ).toEqual([
      'spec.kdl:2: ex: arg "<a>": choices: needs at least one value (choices "a" "b", a block of choice nodes, or env="VAR" naming a variable that lists them)',
      'spec.kdl:3: ex: arg "<b>": choices: unknown child node "option" (a choices block holds choice nodes: choice "value" help="...")',
    ])
  })

  // choices.rs: "unsupported choices key {k}", "unsupported choice key {key}".
  it("rejects unknown properties of choices and choice", () => {
    expect(
      rejects(kdl('bin "ex"', 'arg "<a>" { choices case=#true { choice "x" hidden=#true; }; }')),
    ).toEqual([
      'spec.kdl:2: ex: arg "<a>": choices: unknown property case=#true (known: ignore_case, strict, env)',
      'spec.kdl:2: ex: arg "<a>": choice "x": unknown property hidden=#true (known: help, hide)',
    ])
  })
})
