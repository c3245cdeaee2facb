import { Args, Command, Options } from "@effect/cli"
import { SHELLS } from "../shell/hooks.js"
import { lazy } from "./lazy.js"

const load = () => import("./actions/shell.js")

/** The hidden command's name: never listed, nor suggested for a typo (src/cli/unknownWords.ts). */
export const CD_COMMAND = "cd"

/** `supervisor activate bash|zsh|fish`: the shell hook to eval in the shell's rc file. */
export const activateCommand = Command.make(
  "activate",
  {
    shell: Args.choice(
      SHELLS.map((s) => [s, s] as const),
      { name: "shell" },
    ).pipe(Args.withDescription("the shell: bash, zsh or fish")),
  },
  ({ shell }) => lazy(load, (m) => m.activate(shell)),
).pipe(
  Command.withDescription(
    "print the shell hook that tells the supervisor where each shell is (auto start and stop); eval it in the shell's rc file",
  ),
)

/** `supervisor cd --shell-pid PID`: hidden, run by the hook (usually answered by src/quick/cd.ts). */
export const cdCommand = Command.make(
  CD_COMMAND,
  {
    shellPid: Options.integer("shell-pid").pipe(Options.withDescription("the pid of the shell")),
    background: Options.boolean("background").pipe(
      Options.withDescription("start the supervisor if needed and wait for it (the hook's own use)"),
    ),
    at: Options.integer("at").pipe(
      Options.withDescription("when the hook ran, in µs on the monotonic clock (the hook's own use)"),
      Options.optional,
    ),
  },
  (o) => lazy(load, (m) => m.cd(o)),
).pipe(Command.withDescription("tell the supervisor the shell's directory (run by the shell hook)"))

const pid = Options.integer("pid").pipe(
  Options.withDescription("the pid of the IDE or agent holding the session"),
)
const directory = Options.directory("directory").pipe(
  Options.withDescription("the project directory (default: the current directory)"),
  Options.optional,
)

const enter = Command.make("enter", { pid, directory }, (o) => lazy(load, (m) => m.enter(o))).pipe(
  Command.withDescription(
    "open a project session: the project's auto-start daemons start, and none of its auto-stop daemons stops while the process lives",
  ),
)
const leave = Command.make("leave", { pid, directory }, (o) => lazy(load, (m) => m.leave(o))).pipe(
  Command.withDescription("end the project sessions of a process (only the one in --directory when given)"),
)
const list = Command.make(
  "list",
  { json: Options.boolean("json").pipe(Options.withDescription("print JSON")) },
  (o) => lazy(load, (m) => m.list(o)),
).pipe(Command.withDescription("list the live shells and project sessions"))

/** `supervisor project enter|leave|list`: project sessions of IDEs and agents. */
export const projectCommand = Command.make("project").pipe(
  Command.withDescription("project sessions of IDEs and agents (like a shell inside the project)"),
  Command.withSubcommands([enter, leave, list]),
)
