/**
 * The `_runtime.py` module of a generated Python SDK, verbatim: running the CLI, building its
 * command line and parsing its output live here once, so each generated command class is only
 * names and data. Standard library only (a generated SDK must not add dependencies); Python 3.8+.
 *
 * Kept free of backticks, template placeholders and backslashes so it can live in this template
 * literal unchanged.
 */
export const pythonRuntime = `"""Runtime of a generated SDK: runs the CLI and parses its output. Standard library only."""

from __future__ import annotations

import json
import subprocess
import threading
from dataclasses import dataclass
from typing import Any, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Union

JsonValue = Any
"""A parsed JSON document: dict, list, str, int, float, bool or None."""

FlagValue = Union[bool, int, str, Sequence[str]]
"""A value of a flags dict: see FlagSpec for how each kind is written."""


class FlagSpec(NamedTuple):
    """How one key of a flags dict goes on the command line."""

    argv: str
    """The flag as typed: "--dry-run", or "-n" for a flag with only a short name."""
    kind: str
    """Either "boolean": present or absent (an int repeats it), or "value": followed by its value."""


@dataclass(frozen=True)
class ExitInfo:
    """How the CLI ended."""

    exit_code: int
    """The exit status; for a CLI ended by a signal, 128 + the signal number, as shells report it."""
    signal: Optional[int]
    """The signal that ended the CLI, if one did."""
    stderr: str


@dataclass(frozen=True)
class ExecResult(ExitInfo):
    """What the raw exec method returns: everything the CLI wrote, and how it ended."""

    stdout: str


@dataclass(frozen=True)
class JsonResult(ExecResult):
    """What a json method returns. A non-zero exit is reported here, never raised."""

    value: JsonValue
    """The parsed stdout; None when stdout was empty (or JSON null), or when a CLI that failed
    (non-zero exit) wrote something that is not JSON."""


class JsonParseError(ValueError):
    """The CLI wrote something that is not JSON where JSON was declared."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text
        """The text that did not parse."""


def build_argv(
    path: Sequence[str],
    table: Mapping[str, FlagSpec],
    flags: Optional[Mapping[str, Any]],
    args: Sequence[str],
    selector_argv: Sequence[str] = (),
    omit: Sequence[str] = (),
) -> List[str]:
    """The command line after the binary: subcommand path, flags (in the spec's order), the
    output selector the method chose, then positional arguments. Keys in omit (the selector
    flags) are dropped so a caller's value cannot contradict the method's choice."""
    given = dict(flags or {})
    unknown = sorted(key for key in given if key not in table)
    if unknown:
        raise TypeError("unknown flag(s): " + ", ".join(unknown))
    if isinstance(args, (str, bytes)):
        raise TypeError("args is a sequence of strings, not a string")
    argv = list(path)
    for key, spec in table.items():
        value = given.get(key)
        if value is None or key in omit:
            continue
        if spec.kind == "boolean":
            if not isinstance(value, (bool, int)):
                raise TypeError("flag " + key + " takes a bool or a count")
            argv.extend([spec.argv] * int(value))
        else:
            if isinstance(value, bool):
                raise TypeError("flag " + key + " takes a value")
            values = [value] if isinstance(value, (str, int, float)) else list(value)
            for item in values:
                argv.extend([spec.argv, str(item)])
    argv.extend(selector_argv)
    argv.extend(arg for arg in args if arg is not None)
    return argv


def _exit_info(returncode: int, stderr: bytes) -> ExitInfo:
    signal = -returncode if returncode < 0 else None
    return ExitInfo(
        exit_code=128 + signal if signal is not None else returncode,
        signal=signal,
        stderr=stderr.decode("utf-8", "replace"),
    )


def run_exec(
    bin: str,
    argv: Sequence[str],
    cwd: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> ExecResult:
    """Runs the CLI to completion. Raises OSError only when it cannot be started."""
    # stdin is closed: the SDK never answers prompts, and a CLI waiting on input must not hang it.
    completed = subprocess.run(
        [bin, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        check=False,
    )
    info = _exit_info(completed.returncode, completed.stderr)
    return ExecResult(
        exit_code=info.exit_code,
        signal=info.signal,
        stderr=info.stderr,
        stdout=completed.stdout.decode("utf-8", "replace"),
    )


def run_json(
    bin: str,
    argv: Sequence[str],
    cwd: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> JsonResult:
    """Runs the CLI and parses stdout as one JSON document. Empty stdout gives None.
    Unparsable stdout raises only when the CLI succeeded (it broke its declared contract);
    after a failure the exit code is the news, so value is None and the raw text stays in stdout."""
    result = run_exec(bin, argv, cwd, env)
    value: JsonValue = None
    if result.stdout.strip() != "":
        try:
            value = json.loads(result.stdout)
        except ValueError as error:
            if result.exit_code == 0:
                raise JsonParseError("stdout of the CLI is not JSON", result.stdout) from error
    return JsonResult(
        exit_code=result.exit_code,
        signal=result.signal,
        stderr=result.stderr,
        stdout=result.stdout,
        value=value,
    )


class _Run:
    """The process behind a JsonlStream. Kept apart from the stream object so the line
    generator does not reference the stream: dropping the stream (leaving a for loop over a
    temporary) then frees it at once and the CLI is killed right away, not at a later GC cycle."""

    def __init__(
        self,
        bin: str,
        argv: Sequence[str],
        cwd: Optional[str],
        env: Optional[Mapping[str, str]],
        kill_grace: float,
    ) -> None:
        self.kill_grace = kill_grace
        self.exit: Optional[ExitInfo] = None
        self.finished = False
        self.stderr = b""
        self.process = subprocess.Popen(
            [bin, *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env) if env is not None else None,
        )
        # stderr is drained on a thread: a CLI blocked writing stderr would never finish stdout.
        self.stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self.stderr_reader.start()

    def _drain_stderr(self) -> None:
        if self.process.stderr is not None:
            self.stderr = self.process.stderr.read()

    def finish(self) -> None:
        """Ends the CLI if it still runs (SIGTERM, then SIGKILL after kill_grace seconds) and
        waits for it. Idempotent."""
        if self.finished:
            return
        self.finished = True
        process = self.process
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=self.kill_grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process.stdout is not None:
            process.stdout.close()
        self.stderr_reader.join(timeout=self.kill_grace)
        self.exit = _exit_info(process.returncode, self.stderr)


def _lines(run: _Run) -> Iterator[JsonValue]:
    try:
        stdout = run.process.stdout
        if stdout is None:
            return
        # readline returns each line as soon as it is complete: documents arrive as written.
        for raw in iter(stdout.readline, b""):
            if raw.strip() == b"":
                continue
            try:
                value = json.loads(raw)
            except ValueError as error:
                text = raw.decode("utf-8", "replace")
                raise JsonParseError("a line of the CLI's stdout is not JSON", text) from error
            yield value
        run.process.wait()
    finally:
        run.finish()


class JsonlStream:
    """A running CLI whose stdout is read as JSON Lines: iterating yields one parsed document per
    line as it arrives. Blank lines are skipped; a line that is not JSON ends the CLI and raises
    JsonParseError.

    Stopping early kills the CLI (SIGTERM, then SIGKILL after kill_grace seconds) and waits for
    it, so once close() returns the process is gone. That happens on close(), on leaving a with
    block, and when the stream is garbage-collected, which CPython does immediately on break
    out of "for doc in cmd.exec_jsonl(...)". Keep a reference and call close() (or use with)
    when relying on something other than CPython's reference counting.

    Iteration ends when the CLI has closed stdout and exited; a non-zero exit does not raise,
    read it from exit."""

    def __init__(
        self,
        bin: str,
        argv: Sequence[str],
        cwd: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        kill_grace: float = 2.0,
    ) -> None:
        self._run = _Run(bin, argv, cwd, env, kill_grace)
        self._lines = _lines(self._run)
        self.pid: int = self._run.process.pid
        """Process id of the CLI."""

    @property
    def exit(self) -> Optional[ExitInfo]:
        """How the CLI ended; None while the stream is still open."""
        return self._run.exit

    def __iter__(self) -> JsonlStream:
        return self

    def __next__(self) -> JsonValue:
        return next(self._lines)

    def close(self) -> None:
        """Stops reading and ends the CLI if it still runs; returns once it has exited."""
        self._lines.close()
        self._run.finish()

    def __enter__(self) -> JsonlStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def run_jsonl(
    bin: str,
    argv: Sequence[str],
    cwd: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    kill_grace: float = 2.0,
) -> JsonlStream:
    """Starts the CLI and returns its stdout as a stream of parsed JSON Lines."""
    return JsonlStream(bin, argv, cwd, env, kill_grace)
`
