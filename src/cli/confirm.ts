import * as readline from "node:readline"
import { Effect } from "effect"

/** Whether a person is at a terminal to answer: stdin and stdout are both TTYs. */
export const canAsk = (): boolean => process.stdin.isTTY === true && process.stdout.isTTY === true

/**
 * Asks a yes/no question on the terminal (`[y/N]`): true only for `y` or `yes`. End of input
 * and Ctrl-C answer no.
 */
export const confirm = (question: string): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout })
    let answered = false
    const answer = (yes: boolean) => {
      if (answered) return
      answered = true
      rl.close()
      resume(Effect.succeed(yes))
    }
    rl.on("SIGINT", () => {
      process.stdout.write("\n")
      answer(false)
    })
    rl.on("close", () => answer(false))
    rl.question(`${question} [y/N] `, (a) => answer(/^y(es)?$/i.test(a.trim())))
    return Effect.sync(() => answer(false))
  })
