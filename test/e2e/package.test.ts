/**
 * The npm package as a user installs it: `npm pack` of the built tree, unpacked into a project's
 * node_modules. Its name is not `supervisor` (another tool's), every install instruction, `#:schema`
 * path and client import in the docs uses the real name and points at a file the package ships,
 * the bundle runs with no dependencies installed, the man page is linked by a global install, and
 * the README's set-up keeps the checkout clean.
 */
import { execFileSync, spawnSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const repo = resolve(__dirname, "../..")
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"))
const name: string = pkg.name
const docs = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
].map((file) => ({ file, text: readFileSync(join(repo, file), "utf8") }))

let root = ""
let project = ""
let installed = ""

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "sv-pack-"))
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", root], {
    cwd: repo,
    encoding: "utf8",
  })
  const [packed] = JSON.parse(out) as ReadonlyArray<{ filename: string }>
  execFileSync("tar", ["xzf", join(root, packed?.filename ?? ""), "-C", root])
  // The project that installed it: the package in node_modules, with the client's peer imports
  // (effect, @effect/platform) taken from this repository's.
  project = join(root, "project")
  installed = join(project, "node_modules", name)
  mkdirSync(join(project, "node_modules", "@effect"), { recursive: true })
  renameSync(join(root, "package"), installed)
  symlinkSync(join(repo, "node_modules", "effect"), join(project, "node_modules", "effect"))
  for (const dep of ["platform"])
    symlinkSync(join(repo, "node_modules", "@effect", dep), join(project, "node_modules", "@effect", dep))
}, 120_000)

afterAll(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true })
})

describe("the npm package", () => {
  it("is not named supervisor, and installs the supervisor command", () => {
    expect(name).not.toBe("supervisor")
    expect(Object.keys(pkg.bin)).toEqual(["supervisor"])
  })

  it("runs from the package alone: the bundle needs no installed dependency", () => {
    // the bin is the shell script a global install links (scripts/entry.sh), run as a command
    const bin = join(installed, pkg.bin.supervisor)
    const run = (...args: ReadonlyArray<string>) =>
      spawnSync(bin, args, {
        cwd: root,
        encoding: "utf8",
        env: { PATH: process.env.PATH, HOME: root },
      })
    const version = run("--version")
    expect(version.stderr).toBe("")
    expect(version.stdout.trim()).toBe(pkg.version)
    const schema = run("schema")
    expect(schema.status).toBe(0)
    expect(JSON.parse(schema.stdout)).toEqual(
      JSON.parse(readFileSync(join(installed, "schemas", "supervisor.schema.json"), "utf8")),
    )
  })

  it("ships the man page as a list, so that a global install links it for `man supervisor`", () => {
    // npm links `man` entries into <prefix>/share/man/man<N>/<file name> only when it is an array.
    expect(pkg.man).toEqual(["./man/supervisor.1"])
    expect(existsSync(join(installed, "man", "supervisor.1"))).toBe(true)
  })

  it("every #:schema line of the docs names a file the package ships, or a file:// URL", () => {
    const lines = docs.flatMap(({ file, text }) =>
      [...text.matchAll(/^#:schema (\S+)/gm)].map((m) => ({ file, path: m[1] ?? "" })),
    )
    expect(lines.length).toBeGreaterThan(2)
    for (const { file, path } of lines) {
      expect(path, `${file}: ${path}`).not.toMatch(/^~/)
      if (path.startsWith("./node_modules/")) {
        expect(path, file).toMatch(new RegExp(`^\\./node_modules/${name}/`))
        expect(existsSync(join(project, path)), `${file}: ${path}`).toBe(true)
      } else expect(path, `${file}: ${path}`).toMatch(/^(\.\/\.supervisor\.schema\.json|file:\/\/\/)/)
    }
  })

  it("the typed client imports by the package's name", () => {
    const imports = docs.flatMap(({ text }) => [...text.matchAll(/from "([^"]+)\/client"/g)].map((m) => m[1]))
    expect(imports.length).toBeGreaterThan(0)
    for (const i of imports) expect(i).toBe(name)
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import("${name}/client").then((m) => console.log(typeof m.makeSupervisorClient))`,
      ],
      { cwd: project, encoding: "utf8" },
    )
    expect(run.stderr).toBe("")
    expect(run.stdout.trim()).toBe("function")
  })

  it("the README names the package and, while it is unpublished, installs it from the clone, globally and per project", () => {
    const readme = docs.find((d) => d.file === "README.md")?.text ?? ""
    expect(readme).toContain(`**\`${name}\`**`)
    expect(readme).toContain("npm install -g .")
    expect(readme).toContain(`npm install -D /tmp/${name}-${pkg.version}.tgz`)
    expect(readme).not.toMatch(/npm install (-g|-D) (supervisor|devsupervisor)\b/)
  })
})

it("every changeset names the package", () => {
  const dir = join(repo, ".changeset")
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".md") && f !== "README.md"))
    expect(readFileSync(join(dir, file), "utf8"), file).toMatch(
      new RegExp(`^---\\n"${name}": (major|minor|patch)\\n`),
    )
})

describe("the README's set-up", () => {
  it("installs with npm ci, from a lock file in step with package.json", () => {
    const readme = docs.find((d) => d.file === "README.md")?.text ?? ""
    const setUp = readme.slice(readme.indexOf("## Quick start"))
    expect(setUp.match(/^npm (ci|install)\b/m)?.[0]).toBe("npm ci")
    // `npm ci` refuses a lock file whose root entry differs from package.json.
    const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8"))
    const root = lock.packages[""]
    expect({ name: lock.name, version: lock.version }).toEqual({ name, version: pkg.version })
    expect(root.name).toBe(name)
    expect(root.dependencies).toEqual(pkg.dependencies)
    expect(root.devDependencies).toEqual(pkg.devDependencies)
  })
})
