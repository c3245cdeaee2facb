/**
 * Dependencies are pinned: the committed lock file names an exact version and an integrity hash
 * for every package, covers every dependency of package.json, and CI installs from it with
 * `npm ci` (which refuses a lock file out of step with package.json).
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(__dirname, "..", "..")
const read = (file: string) => readFileSync(join(root, file), "utf8")

interface LockEntry {
  readonly version?: string
  readonly resolved?: string
  readonly integrity?: string
  readonly link?: boolean
}

describe("dependency pinning", () => {
  const pkg = JSON.parse(read("package.json")) as {
    dependencies: Record<string, string>
    devDependencies: Record<string, string>
  }
  const lock = JSON.parse(read("package-lock.json")) as {
    lockfileVersion: number
    packages: Record<string, LockEntry>
  }

  it("package-lock.json (v2+) pins every package to a version and an integrity hash", () => {
    expect(lock.lockfileVersion).toBeGreaterThanOrEqual(2)
    const entries = Object.entries(lock.packages).filter(([path, e]) => path !== "" && e.link !== true)
    expect(entries.length).toBeGreaterThan(0)
    for (const [path, e] of entries) {
      expect(e.version, path).toMatch(/^\d+\.\d+\.\d+/)
      expect(e.integrity, path).toMatch(/^sha(256|384|512)-/)
    }
  })

  it("every dependency of package.json is in the lock file, as the root asks for it", () => {
    const rootEntry = lock.packages[""] as LockEntry & {
      dependencies: Record<string, string>
      devDependencies: Record<string, string>
    }
    expect(rootEntry.dependencies).toEqual(pkg.dependencies)
    expect(rootEntry.devDependencies).toEqual(pkg.devDependencies)
    for (const name of [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)])
      expect(lock.packages[`node_modules/${name}`]?.version, name).toBeDefined()
  })

  it("CI installs with `npm ci` from the lock file", () => {
    const ci = read(".ci/run")
    expect(ci).toMatch(/^\s*if ! npm ci\b/m)
  })
})
