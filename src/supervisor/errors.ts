// A daemon ID the supervisor does not know: a failure of the command protocol (src/domain/CommandErrors.ts).
export { DaemonNotFound, daemonNotFound } from "../domain/CommandErrors.js"
