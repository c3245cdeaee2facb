import { Command } from "@effect/cli"
import { sendOptions } from "./args/send.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/send.js")

export const sendCommand = Command.make("send", sendOptions, (o) => lazy(load, (m) => m.send(o))).pipe(
  Command.withDescription('type text and keys into a running daemon (pty = true or stdin = "pipe")'),
)
