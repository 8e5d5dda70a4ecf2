"""Files written whole or not at all: a temporary file beside the target, renamed over it, removed on failure."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile

from drasim.errors import InputError

__all__ = ["discard", "file_mode", "new_temp", "temp_of", "write_file"]


def file_mode() -> int:
    """The mode a new file gets under the process's umask (mkstemp's 0600 is for secrets, not outputs)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def new_temp(directory: str, name: str, data: bytes, mode: int) -> str:
    """A new file in `directory` (O_EXCL: never an existing path or symlink) holding `data`, synced, with
    `mode`. Removed again if anything (an OSError, Ctrl-C, SIGTERM as `cli.main` raises it) stops it."""
    held = _hold_signals()  # no Ctrl-C/SIGTERM between the file's creation and the `try` that removes it
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    except BaseException:
        _release(held)
        raise
    try:
        _release(held)  # a signal that came meanwhile is raised here, inside the `try`
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        discard(tmp)
        raise
    return tmp


def temp_of(name: str, entry: str) -> bool:
    """Whether `entry` is a temporary `new_temp` made for `name`."""
    return entry.startswith(f".{name}.") and entry.endswith(".tmp")


_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _hold_signals() -> set[int | signal.Signals] | None:
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)


def _release(held: set[int | signal.Signals] | None) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def discard(path: str) -> None:
    """Remove a temporary file if it is still there."""
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_file(path: str, data: bytes | str, *, what: str) -> None:
    """Write `data` to `path` whole: a temporary file in the same directory renamed over it (a symlink at
    `path` is replaced, never followed), so a full disk or an interrupt leaves the old file or none, never a cut
    one. `what` names the option in the error (`--csv`): InputError, the old file untouched."""
    raw = data.encode() if isinstance(data, str) else data
    directory = os.path.dirname(os.path.abspath(path))
    try:
        tmp = new_temp(directory, os.path.basename(path), raw, file_mode())  # removes its own file on failure
        try:
            os.replace(tmp, path)
        except BaseException:
            discard(tmp)
            raise
    except OSError as err:
        raise InputError(f"{what} {path}: {err.strerror or err}") from None
