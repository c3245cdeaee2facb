// dist/quick.cjs: the commands the launcher (scripts/launcher.cjs) asks of the running
// supervisor without loading the CLI bundle. Plain Node: the build refuses Effect here.
export { quickList } from "./list.js"
export { quickLogs } from "./logs.js"
export { quickStart } from "./start.js"
export { quickStop } from "./stop.js"
