"""Output directories drasim writes into: a marker naming its files, atomic writes, nothing else touched."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import tempfile
from collections.abc import Mapping

from drasim.errors import InputError

__all__ = ["MARKER", "write_files"]

# Names the files drasim wrote into the directory; only those may ever be replaced or removed.
MARKER = ".drasim-files"
_MARKER_KIND = "drasim output directory"


def _check_name(name: str, directory: str, *, hidden: bool = False) -> None:
    # File names are drasim's own constants, never object names; this keeps it so.
    if not name or name in (".", "..") or (name.startswith(".") and not hidden) or "/" in name or "\0" in name \
            or os.sep in name or (os.altsep and os.altsep in name):
        raise InputError(f"refusing to write {name!r}: not a plain file name inside the directory", source=directory)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _read_marker(directory: str) -> set[str] | None:
    """The names in the directory's marker; None when there is none. Never follows a symlink."""
    path = os.path.join(directory, MARKER)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{MARKER} is a symbolic link, not drasim's marker: refusing to write here",
                             source=directory) from None
        raise InputError(f"cannot read {MARKER}: {exc.strerror or exc}", source=directory) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"{MARKER} is not a regular file: refusing to write here", source=directory)
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read(1 << 20)
    finally:
        if fd != -1:
            os.close(fd)
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        doc = None
    files = doc.get("files") if isinstance(doc, dict) and doc.get("kind") == _MARKER_KIND else None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise InputError(f"{MARKER} is not drasim's marker: refusing to write here", source=directory)
    names = set(files)
    for name in names:
        _check_name(name, directory, hidden=True)  # temporary files are listed while they exist
    return names


def _marker_bytes(names: set[str], command: str) -> bytes:
    doc = {"kind": _MARKER_KIND, "writtenBy": command,
           "note": "drasim replaces or removes only the files listed here", "files": sorted(names)}
    return (json.dumps(doc, indent=2) + "\n").encode()


def _write_temp(directory: str, name: str, data: bytes, mode: int) -> str:
    """A new file in `directory` (O_EXCL: never an existing path or symlink) holding `data`."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return tmp


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def write_files(directory: str, files: Mapping[str, bytes], *, overwrite: bool, command: str) -> list[str]:
    """Write `files` (plain name -> content) into `directory`, atomically per file (temporary file + rename).

    The directory is created when missing. An existing directory must be empty, or hold drasim's marker
    (`.drasim-files`) from an earlier write, and then only with `overwrite`: the files the marker names
    are replaced or, when this write no longer produces them, removed; nothing else in the directory
    is ever touched, and no symbolic link in it is followed. Files get the mode the umask gives.
    Returns the names written. Raises InputError (nothing changed when content could not be written).
    """
    for name in files:
        _check_name(name, directory)
    created = False
    try:
        st = os.stat(directory)
    except FileNotFoundError:
        try:
            os.makedirs(directory)
        except OSError as exc:
            raise InputError(f"cannot create the directory: {exc.strerror or exc}", source=directory) from None
        created = True
    except OSError as exc:
        raise InputError(f"cannot use the directory: {exc.strerror or exc}", source=directory) from None
    else:
        if not stat.S_ISDIR(st.st_mode):
            raise InputError("exists and is not a directory", source=directory)
    owned: set[str] = set()
    if not created:
        try:
            present = set(os.listdir(directory))
        except OSError as exc:
            raise InputError(f"cannot list the directory: {exc.strerror or exc}", source=directory) from None
        if present:
            marker = _read_marker(directory) if MARKER in present else None
            if marker is None:
                raise InputError(
                    "directory exists, is not empty and was not written by drasim (no .drasim-files marker): "
                    "choose a new or empty directory", source=directory)
            if not overwrite:
                raise InputError("directory holds an earlier drasim output: pass --overwrite to replace it, or "
                                 "choose a new or empty directory", source=directory)
            owned = marker
            foreign = sorted(n for n in files if n in present and n not in owned)
            if foreign:
                raise InputError(f"refusing to replace {', '.join(foreign)}: drasim did not write "
                                 f"{'it' if len(foreign) == 1 else 'them'} (not in .drasim-files)", source=directory)
            for name in sorted(owned & present):
                if stat.S_ISDIR(os.lstat(os.path.join(directory, name)).st_mode):
                    raise InputError(f"refusing to replace {name}: it is now a directory", source=directory)
    mode = 0o666 & ~_umask()
    temps: dict[str, str] = {}
    try:
        for name, data in files.items():
            temps[name] = _write_temp(directory, name, data, mode)
        # The marker names every file drasim may hold here before any of them appears under its name.
        _replace_marker(directory, owned | set(files) | {os.path.basename(t) for t in temps.values()}, command, mode)
        for name, tmp in temps.items():
            os.replace(tmp, os.path.join(directory, name))  # replaces a symlink itself, never its target
        temps.clear()
        for name in sorted(owned - set(files)):
            path = os.path.join(directory, name)
            if os.path.lexists(path) and not stat.S_ISDIR(os.lstat(path).st_mode):
                os.unlink(path)  # drasim's own stale file (a symlink is removed, not followed)
        _replace_marker(directory, set(files), command, mode)
    except OSError as exc:
        for tmp in temps.values():
            _unlink_quietly(tmp)
        if created:
            _unlink_quietly(os.path.join(directory, MARKER))
            with contextlib.suppress(OSError):
                os.rmdir(directory)
        raise InputError(f"cannot write: {exc.strerror or exc}", source=directory) from None
    return list(files)


def _replace_marker(directory: str, names: set[str], command: str, mode: int) -> None:
    tmp = _write_temp(directory, MARKER, _marker_bytes(names, command), mode)
    try:
        os.replace(tmp, os.path.join(directory, MARKER))
    except BaseException:
        _unlink_quietly(tmp)
        raise
