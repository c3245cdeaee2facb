/**
 * What one attempt of a polled check saw: whether it passed, and its output in a line (an HTTP
 * status, a connection error, a command's last output), for the logs of a failed health check.
 */
export interface ProbeAnswer {
  readonly ok: boolean
  readonly output: string
}

/** The most of a check's output an answer keeps (its end: where commands say what went wrong). */
export const ANSWER_OUTPUT_MAX = 1000

/** `text` on one line, trimmed to its last `ANSWER_OUTPUT_MAX` characters. */
export const answerOutput = (text: string): string => {
  const line = text.replace(/\s*\n\s*/g, " | ").trim()
  return line.length <= ANSWER_OUTPUT_MAX ? line : `…${line.slice(line.length - ANSWER_OUTPUT_MAX + 1)}`
}

/**
 * One attempt of a check run without a fiber: started by the call, it calls `done` once with its
 * answer, unless the function it returns cancelled it first.
 */
export type StartAttempt = (done: (answer: ProbeAnswer) => void) => () => void
