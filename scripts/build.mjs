// Bundles the CLI into one CommonJS file: loading node_modules file by file costs
// ~750 ms at start-up, a bundle ~160 ms (see ../shared/DESIGN.md, start-up cost).
// Parsers that @effect/cli only needs for `Options.fileParse` (YAML, TOML, INI)
// and fast-check (only used by Schema's Arbitrary support) are replaced by stubs
// that fail loudly if ever called: they are a quarter of the bundle.
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { pathToFileURL } from "node:url"
import { build } from "esbuild"
import { deepImports } from "./deep-imports.mjs"
import { directOps } from "./direct-ops.mjs"
import { droppableParsers } from "./droppable-parsers.mjs"
import { lazyExpectedKeys } from "./lazy-expected-keys.mjs"
import { lazyGlobals } from "./lazy-globals.mjs"
import { lazyBuiltins, lazyPackage, nextToBundle } from "./lazy-modules.mjs"
import { lightDeferreds } from "./light-deferreds.mjs"
import { lightSchemas } from "./light-schemas.mjs"
import { buildMemoryRelief } from "./memory-relief.mjs"
import { buildNativeQuick } from "./native-quick.mjs"
import { buildProxyFront } from "./proxy-front.mjs"
import { sharedBuiltins } from "./shared-builtins.mjs"
import { buildSpawnHelper } from "./spawn-helper.mjs"

const stubbedIn = (stubbed) => ({
  name: "stub-unused",
  setup(b) {
    b.onResolve({ filter: stubbed }, (args) => ({ path: args.path, namespace: "stub" }))
    b.onLoad({ filter: /.*/, namespace: "stub" }, (args) => ({
      contents: `const fail = () => { throw new Error(${JSON.stringify(`${args.path} is not bundled with supervisor`)}) }
module.exports = new Proxy({}, { get: (_, key) => key === "__esModule" ? false : fail })`,
      loader: "js",
    }))
  },
})
const stubs = stubbedIn(/^(yaml|toml|ini|fast-check)$/)

// The CLI bundle stays lean: the supervisor process (HTTP server, lifecycle,
// process and log services) is a second bundle, loaded only by
// `supervisor supervisor run` (the launcher runs it directly).
const hostExternal = {
  name: "host-external",
  setup(b) {
    // `node dist/cli.cjs supervisor run` (not through the launcher): host.cjs reads the same argv
    // and starts the supervisor when it is required; it exports nothing
    b.onResolve({ filter: /\/host\/main\.js$/ }, () => ({ path: "host-main", namespace: "host-main" }))
    b.onLoad({ filter: /.*/, namespace: "host-main" }, () => ({
      contents: 'exports.hostMain = () => { require(require("node:path").join(__dirname, "host.cjs")) }',
      loader: "js",
    }))
    // `import compose` parses YAML: its own bundle (with the `yaml` library), required (the launcher's
    // script has no dynamic import()) by that command only
    b.onResolve({ filter: /(^|\/)yaml\.js$/ }, (args) =>
      /[/\\]src[/\\]import$/.test(args.resolveDir)
        ? { path: "import-yaml", namespace: "import-yaml" }
        : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: "import-yaml" }, () => ({
      contents: 'module.exports = require(require("node:path").join(__dirname, "import-yaml.cjs"))',
      loader: "js",
    }))
  },
}

// The MCP SDK, only for `supervisor mcp` (src/mcp/server.ts): dist/mcp.cjs, required when the
// command runs. A plain `require` next to the bundle: the launcher runs cli.cjs in a vm.Script,
// where a dynamic `import()` has no loader.
const mcpExternal = {
  name: "mcp-external",
  setup(b) {
    b.onResolve({ filter: /^\.\.\/mcp\/server\.js$/ }, (args) =>
      args.importer.endsWith("/cli/mcpCommand.ts") ? { path: "mcp.cjs", namespace: "mcp-bundle" } : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: "mcp-bundle" }, () => ({
      contents: 'module.exports = require(require("node:path").join(__dirname, "mcp.cjs"))',
      loader: "js",
    }))
  },
}

// `supervisor export` writes YAML: its exporters (and the yaml library) are a bundle of their own,
// dist/export.cjs, loaded by that command only.
const exportExternal = {
  name: "export-external",
  setup(b) {
    b.onResolve({ filter: /\/export\/index\.js$/ }, () => ({ path: "./export.cjs", external: true }))
  },
}

// @effect/platform-node's HTTP server imports `ws` at load (to answer an upgrade, which it prepares
// lazily), and so does the attach route (src/api/attach/upgrade.ts, which makes its server at the
// first attach): ~1 MiB of heap, and the TLS and zlib modules it loads, wait for the first attach.
// Each package below is a bundle of its own in dist/ (LAZY_BUNDLES), so that a supervisor that
// never loads it does not hold its source text either (docs/benchmarks.md, memory per subsystem).
const lazyWs = lazyPackage({
  name: "ws",
  importer: /[/\\]@effect[/\\]platform-node|[/\\]src[/\\]api[/\\]attach[/\\]/,
  keys: ["WebSocket", "WebSocketServer", "createWebSocketStream"],
  file: nextToBundle("ws.cjs"),
})
// ... and `mime`, for the type of a file it serves (the supervisor serves none): its tables hold
// ~0.3 MiB of heap
const lazyMime = lazyPackage({
  name: "mime",
  importer: /[/\\]@effect[/\\]platform-node/,
  keys: ["getType", "getExtension", "define"],
  bind: true,
  file: nextToBundle("mime.cjs"),
})
// ... and croner, for daemons with a `cron` schedule (src/domain/Cron.ts)
const lazyCroner = lazyPackage({
  name: "croner",
  importer: /[/\\]src[/\\]domain[/\\](Cron|cronSchedule)\.ts$/,
  keys: ["Cron"],
  file: nextToBundle("croner.cjs"),
})
// ... and chokidar, for watchers that poll (src/automation/watch/fileWatcher.ts; native watching
// uses fs.watch)
const lazyChokidar = lazyPackage({
  name: "chokidar",
  importer: /[/\\]src[/\\]automation[/\\]watch[/\\]fileWatcher\.ts$/,
  keys: ["watch"],
  file: nextToBundle("chokidar.cjs"),
})
// Packages bundled alone, each in a dist/ file of its own: the lazy ones above, node-forge and `ws` (their
// plugins below)
const PACKAGE_BUNDLES = {
  "forge.cjs": "node-forge",
  "ws.cjs": "ws",
  "mime.cjs": "mime",
  "croner.cjs": "croner",
  "chokidar.cjs": "chokidar",
}

// node-forge (the proxy's and the API listener's local CA, ~290 KiB) is a bundle of its own,
// dist/forge.cjs, required when a certificate is first made or read: a supervisor without the
// proxy or an HTTPS listener does not hold its source.
const forgeExternal = {
  name: "forge-external",
  setup(b) {
    b.onResolve({ filter: /^node-forge$/ }, () => ({ path: "forge", namespace: "forge-bundle" }))
    b.onLoad({ filter: /.*/, namespace: "forge-bundle" }, () => ({
      contents: 'module.exports = require(require("node:path").join(__dirname, "forge.cjs"))',
      loader: "js",
    }))
  },
}

// `ws` (~55 KiB), for `supervisor attach` only (src/terminal/attachSession.ts): dist/ws.cjs,
// required when a session opens; the other commands' bundle does not hold it.
const wsExternal = {
  name: "ws-external",
  setup(b) {
    b.onResolve({ filter: /^ws$/ }, () => ({ path: "ws", namespace: "ws-bundle" }))
    b.onLoad({ filter: /.*/, namespace: "ws-bundle" }, () => ({
      contents: 'module.exports = require(require("node:path").join(__dirname, "ws.cjs"))',
      loader: "js",
    }))
  },
}

// xterm.js and its style sheet, for the web page's terminal pane (~0.5 MiB): dist/xterm.cjs holds
// their texts, required when the page first asks for them, so a supervisor whose page opens no
// terminal does not hold them. src/web/terminalAssets.ts reads them from node_modules; its exports
// are baked into dist/xterm.cjs below.
const xtermExternal = {
  name: "xterm-external",
  setup(b) {
    b.onResolve({ filter: /[/\\]terminalAssets\.js$/ }, () => ({ path: "xterm", namespace: "xterm-bundle" }))
    b.onLoad({ filter: /.*/, namespace: "xterm-bundle" }, () => ({
      contents: 'module.exports = require(require("node:path").join(__dirname, "xterm.cjs"))',
      loader: "js",
    }))
  },
}

/**
 * A module whose one export is the path of a file the build writes into dist/: in the sources it
 * points at dist/ (tests); in a bundle it is replaced with the path next to that bundle.
 * `module` matches the import's path, `dir` the directory it is imported from.
 */
const fileNextToBundle = (name, { module, dir = /./, exportName, file }) => ({
  name,
  setup(b) {
    b.onResolve({ filter: module }, (args) =>
      dir.test(args.resolveDir) ? { path: "file", namespace: name } : undefined,
    )
    b.onLoad({ filter: /.*/, namespace: name }, () => ({
      contents: `exports.${exportName} = require("node:path").join(__dirname, ${JSON.stringify(file)})`,
      loader: "js",
    }))
  },
})

// The proxy's worker thread (src/proxy/worker/entry.ts) is dist/proxy-worker.cjs.
const proxyWorkerFile = fileNextToBundle("proxy-worker-file", {
  module: /[/\\]worker[/\\]file\.js$/,
  dir: /[/\\]src[/\\]proxy$/,
  exportName: "proxyWorkerFile",
  file: "proxy-worker.cjs",
})

// The C spawn helper (src/process/spawnHelper.c) is dist/spawn-helper.
const spawnHelperBinaryFile = fileNextToBundle("spawn-helper-file", {
  module: /[/\\]spawnHelperBinary\.js$/,
  exportName: "spawnHelperBinary",
  file: "spawn-helper",
})

// V8's memory-reducing collections and malloc_trim (src/host/memoryRelief.cc): dist/memory-relief.node.
const memoryReliefFile = fileNextToBundle("memory-relief-file", {
  module: /[/\\]memoryReliefFile\.js$/,
  exportName: "memoryReliefFile",
  file: "memory-relief.node",
})

mkdirSync("dist", { recursive: true })
const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  // `import("node:https")` as `require`: the launcher runs cli.cjs and host.cjs in a vm.Script,
  // where a real dynamic import fails ("A dynamic import callback was not specified")
  supported: { "dynamic-import": false },
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
}
await build({
  ...common,
  entryPoints: ["src/host-entry.ts"],
  outfile: "dist/host.cjs",
  plugins: [
    stubs,
    deepImports,
    lazyGlobals,
    lightSchemas,
    droppableParsers,
    lightDeferreds,
    directOps,
    lazyWs,
    lazyMime,
    lazyCroner,
    lazyChokidar,
    lazyBuiltins(["crypto", "readline", "v8"]),
    sharedBuiltins(["crypto", "readline", "v8"]),
    forgeExternal,
    xtermExternal,
    proxyWorkerFile,
    spawnHelperBinaryFile,
    memoryReliefFile,
  ],
})
await build({
  ...common,
  entryPoints: ["src/proxy/worker/entry.ts"],
  outfile: "dist/proxy-worker.cjs",
  plugins: [forgeExternal, sharedBuiltins()],
})
{
  // the module runs here once (next to node_modules, which it reads) and its texts are written out
  const once = resolve("dist/.terminal-assets.mjs")
  await build({
    ...common,
    format: "esm",
    supported: { "dynamic-import": true },
    sourcemap: false,
    metafile: false,
    entryPoints: ["src/web/terminalAssets.ts"],
    outfile: once,
  })
  try {
    const { XTERM_JS, XTERM_CSS } = await import(pathToFileURL(once).href)
    writeFileSync("dist/xterm.cjs", `module.exports = ${JSON.stringify({ XTERM_JS, XTERM_CSS })}\n`)
  } finally {
    rmSync(once, { force: true })
  }
}
for (const [bundle, name] of Object.entries(PACKAGE_BUNDLES))
  await build({
    ...common,
    entryPoints: [createRequire(import.meta.url).resolve(name)],
    outfile: `dist/${bundle}`,
  })
await build({
  ...common,
  entryPoints: ["src/mcp/server.ts"],
  outfile: "dist/mcp.cjs",
})
// `supervisor tui`: Ink and React, with the dashboard's code, in an ESM bundle (Ink's layout engine
// uses top-level await, which CommonJS cannot hold), run by that command only in a child process.
// Ink's devtools module (react-devtools-core) is only loaded with DEV=true: a stub here.
await build({
  ...common,
  format: "esm",
  supported: { "dynamic-import": true },
  entryPoints: ["src/tui/main.ts"],
  outfile: "dist/tui.mjs",
  banner: { js: 'import{createRequire}from"module";const require=createRequire(import.meta.url);' },
  define: { "process.env.NODE_ENV": '"production"' },
  plugins: [
    stubs,
    stubbedIn(/^react-devtools-core$/),
    deepImports,
    lightSchemas,
    lazyExpectedKeys,
    lightDeferreds,
    directOps,
  ],
})
// What the CLI's argument checks need of its command tree (src/cli/argvTables.ts), read from the
// tree now and baked into the bundle: the CLI does not walk the tree at every start.
const argvTables = async () => {
  const dir = mkdtempSync(join(tmpdir(), "supervisor-argv-"))
  try {
    const out = join(dir, "argvTables.cjs")
    await build({
      ...common,
      entryPoints: ["src/cli/argvTables.ts"],
      outfile: out,
      sourcemap: false,
      plugins: [stubs, hostExternal],
    })
    return createRequire(import.meta.url)(out).treeArgvTables()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const result = await build({
  ...common,
  entryPoints: ["src/main.ts"],
  outfile: "dist/cli.cjs",
  define: { SUPERVISOR_ARGV_TABLES: JSON.stringify(await argvTables()) },
  plugins: [
    stubs,
    hostExternal,
    mcpExternal,
    exportExternal,
    wsExternal,
    deepImports,
    lazyGlobals,
    lightSchemas,
    lazyExpectedKeys,
    lightDeferreds,
    directOps,
    sharedBuiltins(),
  ],
})
await build({
  ...common,
  entryPoints: ["src/export/index.ts"],
  outfile: "dist/export.cjs",
  plugins: [
    stubbedIn(/^(toml|ini|fast-check)$/),
    deepImports,
    lightSchemas,
    lazyExpectedKeys,
    lightDeferreds,
    directOps,
  ],
})
await build({ ...common, entryPoints: ["src/import/yaml.ts"], outfile: "dist/import-yaml.cjs" })
// The fast `list --json` and `start` of the launcher: plain Node, and it must stay so.
const noEffect = {
  name: "no-effect",
  setup(b) {
    b.onResolve({ filter: /^(effect|@effect\/)/ }, (args) => ({
      errors: [
        { text: `${args.path}: the launcher's helpers must not load Effect (imported by ${args.importer})` },
      ],
    }))
  },
}
await build({
  ...common,
  entryPoints: ["src/quick/index.ts"],
  outfile: "dist/quick.cjs",
  plugins: [noEffect],
})
// The supervisor's bundle mapped from a file of its own (src/host/mappedSource.ts): the
// launcher's, for `supervisor run`, before host.cjs is compiled.
await build({
  ...common,
  entryPoints: ["src/host/mappedSource.ts"],
  outfile: "dist/mapped-source.cjs",
  plugins: [noEffect],
})
// The shell hook's `cd`, at every directory change: its own bundle, without `node:http`.
await build({
  ...common,
  entryPoints: ["src/quick/cd.ts"],
  outfile: "dist/quick-cd.cjs",
  plugins: [noEffect],
})
// The typed API client for TypeScript automation (`devsupervisor/client`): ESM, with Effect and
// @effect/platform left to the consumer's node_modules (they are this package's dependencies),
// and its declarations emitted by tsc (tsconfig.client.json).
await build({
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  entryPoints: ["src/client/index.ts"],
  outfile: "dist/client.mjs",
  external: ["effect", "@effect/*"],
  logLevel: "warning",
})
const types = spawnSync(
  process.execPath,
  [resolve("node_modules/typescript/bin/tsc"), "-p", "tsconfig.client.json"],
  {
    encoding: "utf8",
  },
)
if (types.status !== 0)
  throw new Error(`declarations of dist/client.mjs failed:\n${types.stdout}${types.stderr}`)
copyFileSync("scripts/launcher.cjs", "dist/supervisor.cjs")
chmodSync("dist/supervisor.cjs", 0o755)
// The `supervisor` command (package.json's bin): a shell script that runs the launcher
const { version } = JSON.parse(readFileSync("package.json", "utf8"))
writeFileSync("dist/supervisor", readFileSync("scripts/entry.sh", "utf8").replaceAll("@VERSION@", version))
chmodSync("dist/supervisor", 0o755)
const bytes = Object.values(result.metafile.outputs).find((o) => o.entryPoint)?.bytes ?? 0
console.log(`dist/cli.cjs: ${(bytes / 1024).toFixed(0)} KiB`)

console.log(`dist/spawn-helper: ${buildSpawnHelper()}`)
console.log(`dist/memory-relief.node: ${buildMemoryRelief()}`)
console.log(`dist/quick: ${buildNativeQuick()}`)
console.log(`dist/proxy-front: ${buildProxyFront()}`)

// Warm the code cache with the functions a typical command compiles.
const warm = mkdtempSync(join(tmpdir(), "supervisor-build-"))
writeFileSync(
  join(warm, "supervisor.toml"),
  '[daemons.api]\nrun = "node server.js"\nport = 3000\nready_http = "http://127.0.0.1:3000"\n',
)
rmSync("dist/cli.cjs.cache", { force: true })
const run = spawnSync(process.execPath, [resolve("dist/supervisor.cjs"), "config", "show", "--json"], {
  cwd: warm,
  env: {
    ...process.env,
    HOME: warm,
    SUPERVISOR_SYSTEM_CONFIG_DIR: join(warm, "etc"),
    SUPERVISOR_WRITE_CODE_CACHE: "1",
  },
  encoding: "utf8",
})
if (run.status !== 0) throw new Error(`warm-up run failed: ${run.stderr}`)
console.log(`dist/cli.cjs.cache: ${(statSync("dist/cli.cjs.cache").size / 1024).toFixed(0)} KiB`)

// The supervisor's own code cache, made by a background supervisor (with the Node flags it
// always runs with: a cache made under other flags is rejected) that answers a listing and
// starts a one-shot daemon (`exec true`), so that the start's code is in the cache too.
// It writes the cache when it exits. Without it, every first start compiles the bundle (a first
// start of 50 daemons took ~170 ms of the supervisor's time, the next ones ~90).
rmSync("dist/host.cjs.cache", { force: true })
// Only what it needs of the environment: no SUPERVISOR_* setting of the developer's (a web port,
// another state dir) and no system configuration may reach this supervisor.
const warmEnv = {
  PATH: process.env.PATH,
  HOME: warm,
  SUPERVISOR_STATE_DIR: join(warm, "state"),
  SUPERVISOR_SYSTEM_CONFIG_DIR: join(warm, "etc"),
}
// not below `warm`: its supervisor.toml would be part of this project's configuration
const oneShot = mkdtempSync(join(tmpdir(), "supervisor-build-once-"))
writeFileSync(join(oneShot, "supervisor.toml"), '[daemons.once]\nrun = "exec true"\nready_delay = 0\n')
const warmStep = (...args) =>
  spawnSync(process.execPath, [resolve("dist/supervisor.cjs"), ...args], {
    cwd: args[0] === "start" || args[0] === "clean" ? oneShot : warm,
    env: warmEnv,
    encoding: "utf8",
    timeout: 30_000,
  })
try {
  for (const args of [
    ["supervisor", "start"],
    ["list", "--json"],
    ["start", "--all", "--quiet"],
    ["clean"],
    ["supervisor", "stop"],
  ]) {
    const step = warmStep(...args)
    if (step.status !== 0)
      throw new Error(`warm-up of the supervisor (${args.join(" ")}) failed: ${step.error ?? step.stderr}`)
  }
  const deadline = Date.now() + 10_000
  while (!existsSync("dist/host.cjs.cache") && Date.now() < deadline) await sleep(50)
} finally {
  // whatever happened, no supervisor of the build is left running
  const status = warmStep("supervisor", "status", "--json")
  const pid = status.status === 0 ? JSON.parse(status.stdout).pid : undefined
  if (typeof pid === "number") {
    warmStep("supervisor", "stop")
    try {
      process.kill(pid, "SIGKILL")
    } catch {}
  }
  rmSync(warm, { recursive: true, force: true })
  rmSync(oneShot, { recursive: true, force: true })
}
if (!existsSync("dist/host.cjs.cache")) throw new Error("the supervisor wrote no code cache when it stopped")
console.log(`dist/host.cjs.cache: ${(statSync("dist/host.cjs.cache").size / 1024).toFixed(0)} KiB`)
