import { Command } from "@effect/cli"
import { lazy } from "./lazy.js"

const load = () => import("./actions/web.js")

/** `supervisor supervisor token`: the API token that TCP clients send. */
export const tokenCommand = Command.make("token", {}, () => lazy(load, (m) => m.token())).pipe(
  Command.withDescription("print the API token that TCP clients send in X-Supervisor-Token"),
)

/** `supervisor web`: a one-time login link to the web UI. */
export const webCommand = Command.make("web", {}, () => lazy(load, (m) => m.web())).pipe(
  Command.withDescription(
    "print a one-time login link to the web UI (valid 2 minutes, opens a browser session)",
  ),
)
