import { Args, type Command, Options } from "@effect/cli"

// The arguments of `supervisor proxy add` and `proxy remove` (cli/proxy.ts), and what their
// actions receive (actions/proxy.ts).

export const slug = Args.text({ name: "slug" }).pipe(
  Args.withDescription("the slug: the host name's first label (shop for shop.localhost); [A-Za-z0-9_-]+"),
)

export const proxyAddOptions = {
  slug,
  dir: Options.directory("dir").pipe(
    Options.withDescription("the project directory (default: the project of the current directory)"),
    Options.optional,
  ),
  daemon: Options.text("daemon").pipe(
    Options.withDescription("the daemon's name in that project (default: the slug)"),
    Options.optional,
  ),
}
export type ProxyAddOptions = Command.Command.ParseConfig<typeof proxyAddOptions>
