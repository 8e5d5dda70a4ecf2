"""Output directories drasim writes into: a marker naming its files, atomic writes, nothing else touched."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping

from drasim.errors import InputError
from drasim.sources.atomic import discard, file_mode, new_temp, temp_of
from drasim.sources.jsondepth import check_json_depth
from drasim.sources.reading import read_bounded

__all__ = ["MARKER", "write_files"]

# Names the files drasim wrote into the directory; only those may ever be replaced or removed.
MARKER = ".drasim-files"
_MARKER_KIND = "drasim output directory"
MAX_MARKER_BYTES = 1 << 20


def _check_name(name: str, directory: str, *, hidden: bool = False) -> None:
    # File names are drasim's own constants, never object names; this keeps it so.
    if not name or name in (".", "..") or (name.startswith(".") and not hidden) or "/" in name or "\0" in name \
            or os.sep in name or (os.altsep and os.altsep in name):
        raise InputError(f"refusing to write {name!r}: not a plain file name inside the directory", source=directory)


def _read_marker(directory: str) -> set[str] | None:
    """The names in the directory's marker; None when there is none. Never follows a symlink."""
    path = os.path.join(directory, MARKER)
    if not os.path.lexists(path):
        return None
    try:  # never through a link, never a FIFO (it would hang) or a device; a marker is small
        data = read_bounded(path, MAX_MARKER_BYTES, follow=False)
    except InputError as err:
        raise InputError(f"{MARKER}: {err.message}: not drasim's marker, refusing to write here",
                         source=directory) from None
    try:
        check_json_depth(data, source=directory)  # json.loads recurses: a deep planted file would overflow it
        doc = json.loads(data)
    except (InputError, ValueError, UnicodeDecodeError):
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


def write_files(directory: str, files: Mapping[str, bytes], *, overwrite: bool, command: str) -> list[str]:
    """Write `files` (plain name -> content) into `directory`, atomically per file (temporary file + rename).

    The directory is created when missing. An existing directory must be empty, or hold drasim's marker
    (`.drasim-files`) from an earlier write, and then only with `overwrite`: the files the marker names
    are replaced or, when this write no longer produces them, removed; nothing else in the directory
    is ever touched, and no symbolic link in it is followed. Files get the mode the umask gives.
    Returns the names written. Raises InputError (nothing changed when content could not be written).
    Interrupted (Ctrl-C, SIGTERM), a directory that was new or empty is left as it was; one holding an earlier
    output is left resumable: its marker names every file drasim may have put there, temporaries included.
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
    present: set[str] = set()
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
    mode = file_mode()
    temps: dict[str, str] = {}
    try:
        for name, data in files.items():
            temps[name] = new_temp(directory, name, data, mode)
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
    except BaseException as exc:  # an OSError, or Ctrl-C / SIGTERM (cli.main raises it) mid-write
        for tmp in temps.values():
            discard(tmp)
        if not present:  # new or empty before: empty again (and gone if drasim created it)
            with contextlib.suppress(OSError):
                ours = [*files, MARKER]
                for entry in os.listdir(directory):  # a temporary the signal caught before it was recorded too
                    if entry in ours or any(temp_of(name, entry) for name in ours):
                        discard(os.path.join(directory, entry))
            if created:
                with contextlib.suppress(OSError):
                    os.rmdir(directory)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write: {exc.strerror or exc}", source=directory) from None
        raise
    return list(files)


def _replace_marker(directory: str, names: set[str], command: str, mode: int) -> None:
    tmp = new_temp(directory, MARKER, _marker_bytes(names, command), mode)
    try:
        os.replace(tmp, os.path.join(directory, MARKER))
    except BaseException:
        discard(tmp)
        raise
