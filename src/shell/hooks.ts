// The shell hooks `supervisor activate bash|zsh|fish` prints (docs/shell.md): at each directory
// change, and once when loaded, they run `supervisor cd --shell-pid <the shell's pid>` with the
// absolute paths of this `node` and this `supervisor`, so that no PATH lookup is paid at a prompt.
// Their node starts without NODE_EXTRA_CA_CERTS, which Node parses at start-up (35-70 ms) and the
// quick `cd` never uses; the launcher puts it back into its environment (scripts/entry.sh).
import { posixQuote } from "./quote.js"

export const SHELLS = ["bash", "zsh", "fish"] as const
export type ShellName = (typeof SHELLS)[number]

/** A word for fish: single-quoted, with `\` and `'` escaped. */
const fishQuote = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`

/** What the hooks put before the command: NODE_EXTRA_CA_CERTS handed to the launcher, not to node. */
const POSIX_CA = `SUPERVISOR_EXTRA_CA_CERTS="\${NODE_EXTRA_CA_CERTS-}" NODE_EXTRA_CA_CERTS=`
const FISH_CA = 'SUPERVISOR_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS" NODE_EXTRA_CA_CERTS='

/** The hook of `shell`, running `command` (node and the launcher) with `cd --shell-pid`. */
export const hookScript = (shell: ShellName, command: ReadonlyArray<string>): string => {
  switch (shell) {
    case "bash":
      return `# supervisor shell hook (bash): eval "$(supervisor activate bash)" in ~/.bashrc
_supervisor_hook() {
  local previous_exit_status=$?
  if [[ "\${_supervisor_pwd-}" != "$PWD" ]]; then
    _supervisor_pwd=$PWD
    ${POSIX_CA} ${command.map(posixQuote).join(" ")} cd --shell-pid $$ </dev/null
  fi
  return $previous_exit_status
}
if [[ ";\${PROMPT_COMMAND[*]-};" != *";_supervisor_hook;"* ]]; then
  PROMPT_COMMAND="_supervisor_hook\${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
fi
_supervisor_hook
`
    case "zsh":
      return `# supervisor shell hook (zsh): eval "$(supervisor activate zsh)" in ~/.zshrc
_supervisor_hook() {
  ${POSIX_CA} ${command.map(posixQuote).join(" ")} cd --shell-pid $$ </dev/null
}
autoload -Uz add-zsh-hook
add-zsh-hook chpwd _supervisor_hook
_supervisor_hook
`
    case "fish":
      return `# supervisor shell hook (fish): supervisor activate fish | source, in ~/.config/fish/config.fish
function __supervisor_hook --on-variable PWD
  ${FISH_CA} ${command.map(fishQuote).join(" ")} cd --shell-pid $fish_pid </dev/null
end
__supervisor_hook
`
  }
}
