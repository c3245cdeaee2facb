/**
 * The argument checks of the built CLI use the tables the build read from the command tree
 * (src/cli/argvTables.ts, baked into dist/cli.cjs): every value flag and every command made of
 * subcommands of the tree, as the tree says now, is known to the bundle.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RUNS_ALONE } from "../../src/cli/argvChecks.js"
import { treeArgvTables } from "../../src/cli/argvTables.js"
import { makeSandbox, runCli, runCliAsync, type Sandbox } from "./harness.js"

let sb: Sandbox
beforeAll(() => {
  sb = makeSandbox()
})
afterAll(() => sb.cleanup())
const cli = (...args: Array<string>) => runCli(args, { cwd: sb.root, env: sb.env })

describe("the argument checks of the built CLI", () => {
  const tables = treeArgvTables()

  it(
    "know every value flag of the command tree",
    async () => {
      expect(tables.valueFlags).toEqual(
        expect.arrayContaining(["--group", "--lines", "-n", "--web-port", "--web-path"]),
      )
      // -g is --global: no value
      expect(tables.valueFlags).not.toContain("-g")
      // two CLIs at a time (one per core): the flags are many
      const queue = [...tables.valueFlags]
      const worker = async () => {
        for (let flag = queue.shift(); flag !== undefined; flag = queue.shift()) {
          const r = await runCliAsync(["list", flag], { cwd: sb.root, env: sb.env })
          expect(r.status, `${flag}: ${r.stderr}`).toBe(2)
          expect(r.stderr).toBe(`error: ${flag} needs a value\n`)
        }
      }
      await Promise.all([worker(), worker()])
      // a deadline per CLI run (two at a time), not for the whole table: the flags are many
    },
    2_000 * treeArgvTables().valueFlags.length,
  )

  it("know every command made of subcommands, with theirs", () => {
    expect(Object.keys(tables.subcommands)).toEqual(expect.arrayContaining(["supervisor", "config", "spec"]))
    for (const [command, subs] of Object.entries(tables.subcommands)) {
      const r = cli(command)
      // `supervisor settings` alone prints every setting, `supervisor daemons` lists: both still name an unknown subcommand below
      if (RUNS_ALONE.has(command)) {
        expect(r.status, `${command}: ${r.stderr}`).toBe(0)
        continue
      }
      expect(r.status, `${command}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(`\`supervisor ${command}\` needs a subcommand: ${subs.join(", ")} `)
    }
    for (const command of RUNS_ALONE) {
      const r = cli(command, "bogus")
      expect(r.status, `${command}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(`unknown subcommand \`supervisor ${command} bogus\``)
      expect(cli(command).status, command).toBe(0)
    }
  })
})
