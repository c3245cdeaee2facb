// CI's check after the `npm install` fallback (see .ci/run): the lock file may only have gained or
// lost other platforms' optional binaries (whichever of them the registry serves that day); any
// other change means the installed versions are not the locked ones. Usage:
//   node scripts/lock-drift.mjs <the committed package-lock.json> <the one npm install left>
import { readFileSync } from "node:fs"

const [before, after] = process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, "utf8")).packages ?? {})
const changed = []
for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
  const a = before[key]
  const b = after[key]
  if (JSON.stringify(a) === JSON.stringify(b)) continue
  // an optional platform binary that one side lists and the other does not
  if ((a === undefined && b?.optional) || (b === undefined && a?.optional)) continue
  changed.push(key || "(root)")
}
if (changed.length > 0) {
  console.error(`package-lock.json changed beyond optional platform binaries: ${changed.join(", ")}`)
  process.exit(1)
}
console.error("package-lock.json: only optional platform binaries differ; the locked versions are installed")
