#!/usr/bin/env node
// Start-up launcher: runs the bundled CLI (cli.cjs) through a V8 code cache built
// at install time, so that Node does not re-parse and re-compile ~600 KiB of
// JavaScript on every command. A missing or stale cache (another Node version)
// only costs the normal compile; a stale one is rewritten on exit when possible.
"use strict"
// dist/supervisor (scripts/entry.sh) starts the quick commands' node without NODE_EXTRA_CA_CERTS,
// which Node parses at start-up: back into the environment, before anything reads it or is started.
const extraCaCerts = process.env.SUPERVISOR_EXTRA_CA_CERTS
if (extraCaCerts !== undefined) {
  if (extraCaCerts !== "") process.env.NODE_EXTRA_CA_CERTS = extraCaCerts
  else if (process.env.NODE_EXTRA_CA_CERTS === "") delete process.env.NODE_EXTRA_CA_CERTS
  delete process.env.SUPERVISOR_EXTRA_CA_CERTS
}
const fs = require("node:fs")
const path = require("node:path")
const vm = require("node:vm")
const Module = require("node:module")

// The aliases of the commands this launcher looks at (src/cli/aliases.ts has them all; a test
// keeps these equal to those): `s` is `start`, `l` is `logs`, `ls` is `list`, `sup` is `supervisor`.
const LAUNCHER_ALIASES = { s: "start", l: "logs", ls: "list", sup: "supervisor" }
const typed = process.argv.slice(2)
const args =
  typed.length > 0 && Object.hasOwn(LAUNCHER_ALIASES, typed[0])
    ? [LAUNCHER_ALIASES[typed[0]], ...typed.slice(1)]
    : typed
// A reader that goes away (`supervisor logs -f | head`) is how a pipeline ends, not an error:
// stop quietly, as `cat` would. Not for the supervisor process itself (`supervisor run`).
if (!(args[0] === "supervisor" && args[1] === "run")) {
  for (const stream of [process.stdout, process.stderr])
    stream.on("error", (error) => {
      if (error && error.code === "EPIPE") process.exit(0)
      throw error
    })
}
// A supervisor at a URL (`--url`, SUPERVISOR_URL: docs/remote.md) is the CLI's to reach: the
// quick client below only knows this machine's socket.
const dash = args.indexOf("--")
const remote =
  (process.env.SUPERVISOR_URL ?? "").trim() !== "" ||
  (dash < 0 ? args : args.slice(0, dash)).some((a) => a === "--url" || a.startsWith("--url="))
// `supervisor --version` needs nothing of the CLI: answer it without loading the bundle.
if (args.length === 1 && args[0] === "--version") {
  process.stdout.write(`${require("../package.json").version}\n`)
} else if (args.length === 2 && args[0] === "list" && args[1] === "--json") {
  // Asked of the running supervisor (quick.cjs, from src/quick/); else the CLI answers.
  quick((q) => q.quickList()).then((done) => done || runBundle(args))
} else if (args[0] === "start") {
  quick((q) => q.quickStart(args.slice(1))).then((status) => exitOr(status, args))
} else if (args[0] === "stop") {
  quick((q) => q.quickStop(args.slice(1))).then((status) => exitOr(status, args))
} else if (args[0] === "cd") {
  // the shell hook's command, at every directory change: never the CLI bundle when it can help
  quick((q) => q.quickCd(args.slice(1)), "./quick-cd.cjs").then((done) => done || runBundle(args))
} else if (args[0] === "logs") {
  quick((q) => q.quickLogs(args.slice(1))).then((status) => exitOr(status, args))
} else {
  runBundle(args)
}

// A quick command's exit status (it printed its answer), or false: the CLI answers instead.
function exitOr(status, args) {
  if (status === false) return runBundle(args)
  if (status !== 0) process.exitCode = status
}

function quick(f, bundle = "./quick.cjs") {
  if (remote) return Promise.resolve(false)
  try {
    return f(require(bundle)).catch(() => false)
  } catch {
    return Promise.resolve(false)
  }
}

function runBundle(args) {
  // `supervisor supervisor run` is the supervisor process itself: its own bundle.
  const host =
    args[0] === "supervisor" && args[1] === "run" && !args.includes("--help") && !args.includes("-h")
  const file = path.join(__dirname, host ? "host.cjs" : "cli.cjs")
  const cacheFile = `${file}.cache`
  let cachedData
  try {
    cachedData = fs.readFileSync(cacheFile)
  } catch {}
  const source = (host && hostSource(file)) || Module.wrap(fs.readFileSync(file, "utf8"))
  const script = new vm.Script(source, { filename: file, cachedData })
  // A cache is only valid under the V8 flags it was made with. The supervisor's is made under
  // the flags of a background supervisor (src/host/nodeFlags.ts, marked by the first): one run in
  // the foreground without them must not replace it with a cache the next background one rejects.
  const hostFlags = !host || process.execArgv.includes("--max-semi-space-size=1")
  if (
    process.env.SUPERVISOR_WRITE_CODE_CACHE === "1" ||
    cachedData === undefined ||
    (script.cachedDataRejected && hostFlags)
  ) {
    process.once("exit", () => {
      // Atomic: a concurrent reader sees the old cache or the new one, never half of one.
      const tmp = `${cacheFile}.${process.pid}.tmp`
      try {
        fs.writeFileSync(tmp, script.createCachedData())
        fs.renameSync(tmp, cacheFile)
      } catch {
        fs.rmSync(tmp, { force: true })
      }
    })
  }
  const module_ = { exports: {}, filename: file, id: file, loaded: false }
  script
    .runInThisContext()
    .call(module_.exports, module_.exports, Module.createRequire(file), module_, file, __dirname)
}

// The supervisor's bundle as file pages rather than heap (src/host/mappedSource.ts), else undefined.
function hostSource(file) {
  try {
    const { mappedSource, loadSourceMapper } = require("./mapped-source.cjs")
    const mapper = loadSourceMapper(path.join(__dirname, "memory-relief.node"))
    return mappedSource(file, Module.wrapper, { env: process.env, mapper })
  } catch {
    return undefined
  }
}
