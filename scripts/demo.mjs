// `npm run demo`: starts the stack of examples/demo with the built CLI and lists it.
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../dist/supervisor.cjs", import.meta.url))
const cwd = fileURLToPath(new URL("../examples/demo/", import.meta.url))
const run = (...args) => spawnSync(process.execPath, [bin, ...args], { cwd, stdio: "inherit" }).status ?? 1

const started = run("start", "--all")
run("list")
console.log(`
The demo runs in the background. From the repository root:
  node dist/supervisor.cjs logs worker -f     follow the worker's output
  curl http://127.0.0.1:3000/                 ask the API
  node dist/supervisor.cjs stop --all         stop the stack
  node dist/supervisor.cjs supervisor stop    stop the supervisor`)
process.exit(started)
