"""How a command ends: the one exit-code rule (2 input refused, 1 the answer is "no", 0 answered), write
errors on stdout (one line, exit 1) and SIGTERM (unwinds like Ctrl-C, so no temporary file is left)."""

from __future__ import annotations

import atexit
import errno
import io
import os
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from drasim.sources.inputs import Inputs

__all__ = [
    "ANSWERED",
    "INTERRUPTED",
    "NO",
    "REFUSED",
    "WriteFailed",
    "catch_termination",
    "end_process",
    "finish",
    "flush_stdout",
    "guard_stdout",
    "leave_to_exit",
    "output_failed",
    "write_error",
]

ANSWERED = 0  # everything was read and the command answered
NO = 1  # the answer is "no": validate/lint errors, pending pods with --fail-on-pending, failed checks
REFUSED = 2  # some input was refused: a document that does not decode, an object admission rejects (InputError)
INTERRUPTED = 128 + signal.SIGINT  # Ctrl-C, as a shell reports a process the signal ended

# Set by the entry point (main), which ends the process with end_process once its output is flushed: what a
# command leaves here (a 50,000-pod simulation: millions of objects) then goes back to the OS at once, instead
# of being freed one object at a time as the command's frame unwinds (~6 % of such a run). A command run
# in-process (tests, CliRunner) frees its objects as before.
_fast_exit = False
_left: list[object] = []


def leave_to_exit(*objects: object) -> None:
    """Keep `objects` alive until the process ends, when the entry point ends it with end_process (else nothing)."""
    if _fast_exit:
        _left.extend(objects)


def finish(inputs: Inputs | None = None, *, answer_no: bool = False, rejections_answer: bool = False) -> None:
    """End a command that has printed its whole answer. Refused input (2) outranks "no" (1), as kubectl apply
    -f reports what it could not apply after applying the rest. `rejections_answer`: what the API server
    would reject is the command's answer (validate, lint), so it counts as "no"; only documents that do not
    decode are refused input there. The inputs are left to the process's end (`leave_to_exit`)."""
    leave_to_exit(inputs)
    if inputs is not None:
        if rejections_answer:
            inputs.raise_unreadable()
        else:
            inputs.raise_refused()
    if answer_no:
        # sys.exit, not click's Exit: the entry point runs click with standalone_mode=False, where an Exit's
        # code is returned rather than used.
        sys.exit(NO)


def catch_termination() -> None:
    """SIGTERM raises SystemExit(143) where the program is, as Ctrl-C raises KeyboardInterrupt: `finally` and
    `except BaseException` blocks run, so temporary files are removed (sources.atomic, sources.outdir)."""
    def _terminate(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _terminate)


# errno values of a failed write to stdout: the reader left (EPIPE), the disk is full (ENOSPC, EDQUOT, EFBIG),
# stdout is closed (EBADF), the device failed (EIO).
_WRITE_ERRORS = {errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF, errno.EIO}


def write_error(err: BaseException) -> bool:
    """True for an OSError that a write to stdout gives."""
    return isinstance(err, OSError) and err.errno in _WRITE_ERRORS


class WriteFailed(Exception):
    """A write to stdout failed inside a command; carried past click, which would end an EPIPE silently."""

    def __init__(self, err: OSError) -> None:
        super().__init__(str(err))
        self.err = err


class _Closed(io.RawIOBase):
    """stdout when the process started with it closed (`>&-`): every write fails with EBADF (Python would
    otherwise drop the output silently and exit 0), until the failure has been reported."""

    silenced = False

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        if self.silenced:
            return len(data) if isinstance(data, bytes | bytearray | memoryview) else 0
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


def guard_stdout() -> None:
    """Give a closed stdout a stream whose writes fail, so a command that prints says it could not."""
    if sys.stdout is None:
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Closed()), encoding="utf-8", line_buffering=False)


def output_failed(err: OSError, code: int) -> int:
    """Report a failed write to stdout in one line and make stdout a sink, so the interpreter's last flush
    adds no second message; the exit code: the command's own if it failed already, else NO (1)."""
    print(f"error: cannot write the output to stdout: {err.strerror or err}", file=sys.stderr)
    raw = getattr(getattr(sys.stdout, "buffer", None), "raw", None)
    if isinstance(raw, _Closed):
        raw.silenced = True
    else:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass
    return code or NO


def flush_stdout(code: int) -> int:
    """Flush what the command printed; a write error here is reported as any other (`output_failed`)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as err:
        if not write_error(err):
            raise
        return output_failed(err, code)
    return code


def end_process(code: int) -> NoReturn:
    """End the `drasim` process with `code` once its output is flushed, without the interpreter's teardown.

    Tearing down frees every object one by one: after reading a 5,000-node fleet that is ~0.35 CPU-s of
    nothing a user sees. atexit handlers still run and stderr is flushed; with another thread alive (a pool,
    a dask client), or a profiler or tracer that writes its results when the program returns (cProfile),
    the interpreter ends as usual, so nothing is cut short."""
    if threading.active_count() > 1 or sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
