import { describe, expect, it } from "vitest"
import { compileGlob, globCouldContain, globMatches, globProblem } from "../../src/domain/Glob.js"

const matches = (pattern: string, path: string) => globMatches(compileGlob(pattern), path)

describe("glob matching", () => {
  const table: ReadonlyArray<readonly [string, string, boolean]> = [
    ["*.js", "app.js", true],
    ["*.js", "src/app.js", false],
    ["*.js", "app.ts", false],
    ["*.js", "app.js.map", false],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/z.ts", true],
    ["src/**/*.ts", "lib/a.ts", false],
    ["src/**/*.ts", "src/a.js", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "deep/er/a.ts", true],
    ["src/**", "src/x/y", true],
    ["package.json", "package.json", true],
    ["package.json", "sub/package.json", false],
    ["config/app.toml", "config/app.toml", true],
    ["?.txt", "a.txt", true],
    ["?.txt", "ab.txt", false],
    ["[ab].txt", "b.txt", true],
    ["[!ab].txt", "b.txt", false],
    ["[!ab].txt", "c.txt", true],
    ["*.{js,ts}", "a.ts", true],
    ["*.{js,ts}", "a.css", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["./*.js", "app.js", true],
  ]
  for (const [pattern, path, expected] of table)
    it(`${pattern} ${expected ? "matches" : "does not match"} ${path}`, () => {
      expect(matches(pattern, path)).toBe(expected)
    })
})

describe("directories a pattern may descend into", () => {
  const could = (pattern: string, dir: string) => globCouldContain(compileGlob(pattern), dir)
  it("a pattern without a directory stays in its own", () => {
    expect(could("*.js", "")).toBe(true)
    expect(could("*.js", "src")).toBe(false)
  })
  it("src/** descends into src only, at any depth", () => {
    expect(could("src/**/*.ts", "src")).toBe(true)
    expect(could("src/**/*.ts", "src/a/b")).toBe(true)
    expect(could("src/**/*.ts", "lib")).toBe(false)
  })
  it("a literal path descends only along itself", () => {
    expect(could("config/app.toml", "config")).toBe(true)
    expect(could("config/app.toml", "config/x")).toBe(false)
  })
})

describe("malformed patterns", () => {
  it("names what is wrong", () => {
    expect(globProblem("src/[ab.js")).toBe('"src/[ab.js": "[" without a closing "]"')
    expect(globProblem("*.{js,ts")).toBe('"*.{js,ts": "{" without a closing "}"')
    expect(globProblem("a}.js")).toBe('"a}.js": "}" without an opening "{"')
    expect(globProblem(" ")).toBe("an empty pattern matches nothing")
    expect(globProblem("src/**/*.ts")).toBeUndefined()
  })
})
