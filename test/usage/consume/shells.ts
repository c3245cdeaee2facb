import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { promisify } from "node:util"

/**
 * Runs generated completion scripts in the real shells: bash through its completion variables,
 * zsh in its line editor on a pseudo-terminal, fish with `complete -C`. Each returns the
 * candidates offered (zsh and fish as `value<TAB>description` when there is a description).
 */

// One directory per test process, removed when it exits: a worker runs one file after another
// with this module loaded once, so an afterAll of the first file would remove it under the next.
const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "usage-completion-"))
process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }))

export const has = (tool: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/**
 * Runs the generated bash function the way bash's completion does: COMP_WORDS/COMP_CWORD set
 * (the last word is the one being completed), then prints COMPREPLY one per line.
 */
export const bashCompleteWith = (
  script: string,
  words: ReadonlyArray<string>,
  options: { wordbreaks?: string; fn?: string; cwd?: string } = {},
): Array<string> => {
  const file = nodePath.join(dir, `script-${++runs}.bash`)
  fs.writeFileSync(file, script)
  const setBreaks =
    options.wordbreaks === undefined ? "" : `COMP_WORDBREAKS=${JSON.stringify(options.wordbreaks)};`
  const out = execFileSync(
    "bash",
    [
      "-c",
      `${setBreaks} source "$0"; COMP_WORDS=("\${@}"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); ${options.fn ?? "_demo"}; printf '%s\\n' "\${COMPREPLY[@]}"`,
      file,
      ...words,
    ],
    { encoding: "utf8", cwd: options.cwd ?? emptyDir },
  )
  return out.split("\n").filter((l) => l !== "")
}

/** zsh and fish are not optional here: a missing one fails the test, saying how to get it. */
export const requireShell = (shell: "zsh" | "fish") => {
  if (!has(shell)) throw new Error(`${shell} is not installed: run \`apt-get install zsh fish\``)
}

const run = promisify(execFile)
/** An empty directory to run the shells in, so a file-name completion offers nothing. */
export const emptyDir = fs.mkdtempSync(nodePath.join(dir, "cwd-"))
let runs = 0

/**
 * The candidates fish offers for `line` (the text before the cursor), sorted, each
 * `value<TAB>description` or `value` alone: `complete -C` prints them that way.
 */
export const fishCompleteWith = async (
  script: string,
  line: string,
  cwd = emptyDir,
): Promise<Array<string>> => {
  requireShell("fish")
  const file = nodePath.join(dir, `demo-${++runs}.fish`)
  fs.writeFileSync(file, script)
  const { stdout } = await run(
    "fish",
    ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file, line],
    // a bound for a shell that hangs, not a measure: the test's own timeout comes first
    { cwd, timeout: 120_000 },
  )
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .sort()
}

/**
 * Inside the pseudo-terminal: an interactive `zsh -f` loads the completion system and the
 * script (sourced, or autoloaded from $fpath as a `_demo` file), then wraps `compadd` (which
 * `_arguments` and `_describe` end in) to write each candidate to $RESULT as `word<TAB>display`
 * instead of offering it. Calls that only fill arrays (-O/-A/-D) go to the real compadd.
 * `comppostfuncs=(exit)` ends the shell once a completion is done.
 */
const zshSetup = `
PS1= RPS1=
if [[ -n $FPATH_DIR ]]; then fpath=($FPATH_DIR $fpath); fi
# compinit reads every completion function on $fpath (seconds of CPU): from the dump made once per
# test process, unless the test puts a function of its own on $fpath
autoload -Uz compinit
if [[ -n $FPATH_DIR ]]; then compinit -u -D; else compinit -u -C -d $ZDUMP; fi
if [[ -z $FPATH_DIR ]]; then source $SCRIPT; fi
zstyle ':completion:*' list-grouped false
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits disp
  local d=\${@[(i)-d]}
  (( d < $# )) && disp=("\${(@P)\${@[d+1]}}")
  builtin compadd -A hits -D disp "$@"
  local i
  for (( i = 1; i <= $#hits; i++ )); do print -r -- "$hits[i]"$'\\t'"$disp[i]" >> $RESULT; done
}
comppostfuncs=(exit)
`
const zshSetupFile = nodePath.join(dir, "setup.zsh")
fs.writeFileSync(zshSetupFile, zshSetup)

/**
 * zsh completes only in its line editor, which needs a terminal: this outer `zsh -f` starts the
 * interactive one on a pseudo-terminal (zsh/zpty), has it source the setup, types the line and
 * TAB, then reads until the inner shell exits.
 */
const zshDriver = `
zmodload zsh/zpty || { print -u2 "zsh/zpty is missing"; exit 2 }
zpty z zsh -f -i
zpty -w z "source \${(q)1}"
zpty -w -n z "$2"$'\\t'
while zpty -r z chunk; do :; done
`

const zdump = nodePath.join(dir, "zcompdump")
let dumped: Promise<unknown> | undefined
/**
 * The completion system's dump, made once per test process (seconds of CPU on a busy machine):
 * call it from a `beforeAll` with a long timeout; the first zsh completion makes it otherwise.
 */
export const zshDump = () =>
  (dumped ??= run("zsh", ["-f", "-c", "autoload -Uz compinit && compinit -u -d $1", "zsh", zdump], {
    timeout: 120_000,
  }))

/**
 * The candidates zsh offers for `line`, sorted, each `value<TAB>description` or `value` alone
 * (the description is what `_describe` shows after ` -- `).
 */
export const zshCompleteWith = async (
  text: string,
  line: string,
  options: { autoload?: boolean; cwd?: string; name?: string } = {},
) => {
  requireShell("zsh")
  const n = ++runs
  const script = nodePath.join(dir, `demo-${n}.zsh`)
  const fpathDir = nodePath.join(dir, `fpath-${n}`)
  const result = nodePath.join(dir, `result-${n}`)
  fs.writeFileSync(script, text)
  if (options.autoload === true) {
    fs.mkdirSync(fpathDir)
    fs.writeFileSync(nodePath.join(fpathDir, options.name ?? "_demo"), text)
  }
  fs.writeFileSync(result, "")
  await zshDump()
  await run("zsh", ["-f", "-c", zshDriver, "zsh", zshSetupFile, line], {
    cwd: options.cwd ?? emptyDir,
    // a bound for a shell that hangs, not a measure: the test's own timeout comes first
    timeout: 120_000,
    env: {
      ...process.env,
      ZDUMP: zdump,
      SCRIPT: script,
      RESULT: result,
      FPATH_DIR: options.autoload === true ? fpathDir : "",
    },
  })
  return fs
    .readFileSync(result, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [word = "", display = ""] = l.split("\t")
      const sep = display.indexOf(" -- ")
      return sep < 0 ? word : `${word}\t${display.slice(sep + 4)}`
    })
    .sort()
}
