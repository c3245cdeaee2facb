// Entry of dist/host.cjs: the launcher runs it for `supervisor supervisor run`.
import { hostMain } from "./host/main.js"

hostMain()
