// Reads a PM2 ecosystem file: JSON is parsed here; a .js/.cjs/.mjs file is code, so it is loaded
// by a child Node process (never in the CLI's own), which prints what it exports as JSON.
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { pathToFileURL } from "node:url"
import { Effect } from "effect"
import { ImportFailed } from "./model.js"

/** The child's program: import the file (CommonJS or ESM alike) and print its export. */
const LOADER = `import(process.argv[1]).then((m) => {
  const v = m.default !== undefined ? m.default : m
  process.stdout.write(JSON.stringify(v === undefined ? null : v))
}, (e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1) })`

const TIMEOUT_MS = 10_000

const failed = (file: string, problem: string, hint: string) => new ImportFailed({ file, problem, hint })

/** The exported value of an ecosystem file. */
export const loadEcosystem = (file: string): Effect.Effect<unknown, ImportFailed> =>
  file.endsWith(".json")
    ? Effect.try({
        try: () => JSON.parse(fs.readFileSync(file, "utf8")) as unknown,
        catch: (e) =>
          failed(
            file,
            `not valid JSON: ${(e as Error).message}`,
            "fix the JSON, or export the apps from a .js file",
          ),
      })
    : Effect.async<unknown, ImportFailed>((resume) => {
        const child = execFile(
          process.execPath,
          ["--input-type=commonjs", "-e", LOADER, pathToFileURL(file).href],
          { timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, env: process.env },
          (error, stdout, stderr) => {
            if (error !== null) {
              const first =
                stderr.split("\n").find((l) => /Error/.test(l)) ?? stderr.trim().split("\n")[0] ?? ""
              return resume(
                Effect.fail(
                  failed(
                    file,
                    error.killed
                      ? `loading it took more than ${TIMEOUT_MS / 1000} s`
                      : `loading it failed: ${first || error.message}`,
                    "run `node -e \"require('./<file>')\"` to see the error, or give an ecosystem.config.json",
                  ),
                ),
              )
            }
            try {
              resume(Effect.succeed(JSON.parse(stdout) as unknown))
            } catch (e) {
              resume(
                Effect.fail(
                  failed(
                    file,
                    `its export is not JSON data: ${(e as Error).message}`,
                    "export plain data: { apps: [...] }",
                  ),
                ),
              )
            }
          },
        )
        return Effect.sync(() => child.kill())
      })
