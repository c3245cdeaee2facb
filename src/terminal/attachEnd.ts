import { signalExitStatus } from "../domain/Signal.js"
import type { AttachEnd } from "./attachSession.js"

/**
 * How a session of daemon `id` ended, in one line without colours, whether that is a failure, and
 * the exit status of `supervisor attach`: 0 on detach, the daemon's code when it exited (128 + the
 * signal's number for a signal), 1 when the supervisor refused or went away.
 */
export const attachEndReport = (
  id: string,
  end: AttachEnd,
): { readonly text: string; readonly failed: boolean; readonly code: number } => {
  switch (end._tag) {
    case "Detached":
      return { text: `detached from ${id} (still running)`, failed: false, code: 0 }
    case "Exited":
      return end.signal !== null
        ? {
            text: `${id} was killed by ${end.signal}`,
            failed: false,
            code: signalExitStatus(end.signal) ?? 1,
          }
        : end.code === null
          ? { text: `${id} exited`, failed: false, code: 1 }
          : { text: `${id} exited with code ${end.code}`, failed: false, code: end.code }
    case "Refused":
    case "Lost":
      return { text: end.message, failed: true, code: 1 }
    case "Signalled":
      return {
        text: `detached from ${id} on ${end.signal} (still running)`,
        failed: false,
        code: signalExitStatus(end.signal) ?? 1,
      }
  }
}
