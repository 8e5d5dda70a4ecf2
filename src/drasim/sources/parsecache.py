"""The parse cache: documents of big YAML inputs, kept by content hash so the next run skips YAML parsing.

Parsing YAML costs about 0.8 CPU-s per 1,000 fleet nodes (PyYAML's C parser builds a Python object for
every event and node; that alone is 0.6 s), reading the same documents back from msgpack 0.04 s. A fleet
or a cluster dump is read by many commands in a row, so the first parse of an input of at least
`MIN_BYTES` is kept in `$DRASIM_CACHE_DIR`, else `$XDG_CACHE_HOME/drasim`, else `~/.cache/drasim`
(`DRASIM_CACHE_DIR=off` turns it off), as kubectl keeps `~/.kube/cache`. An entry is keyed by the input's
bytes and everything the parse depends on (drasim's and PyYAML's versions, the depth and alias limits),
so a hit is the parse itself; only clean parses of plain documents (string keys, no aliases, core types,
which msgpack keeps exactly) are stored (see `files._parse`), or for a text rapidyaml reads, its JSON as the
typed decoders take it (`yamlfast.Emitted`, see `files._load_yaml`). Failures to read or write the cache are
never errors: the input is parsed as if there were none.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from typing import Any

import msgspec

from drasim.api.decode import gc_paused
from drasim.errors import InputError
from drasim.sources.reading import read_bounded
from drasim.sources.yamlfast import Emitted

MIN_BYTES = 1 << 20  # smaller inputs parse in under 0.15 CPU-s: not worth a file
MAX_TOTAL_BYTES = 1 << 30  # oldest entries (by last use) go beyond this
# The largest entry read back: twice the largest input (files.MAX_FILE_BYTES, 256 MiB); msgpack of parsed YAML
# is no bigger than its text, so only a damaged or planted entry is refused (then the input is parsed).
# rapidyaml's JSON (flow style, about the text's size) may be bigger than msgpack: larger JSON is not stored.
MAX_ENTRY_BYTES = 1 << 29
FORMAT = 3
# An entry's body after its checksum line: msgpack of the documents (an array: never these first bytes), or one
# of these and rapidyaml's JSON.
_JSON_STREAM, _JSON_DOCUMENT = b"S", b"D"
_SUBDIR = f"yaml-v{FORMAT}"


def cache_dir() -> str | None:
    """Where entries live, or None when the cache is off."""
    configured = os.environ.get("DRASIM_CACHE_DIR")
    if configured is not None:
        return None if configured.strip().lower() in ("", "off", "0", "false", "no") else configured
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # unset, or relative, which the XDG spec says to ignore
        base = os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):  # no home (a container's random user): never a folder under the cwd
        return None
    return os.path.join(base, "drasim")


def entry_key(data: bytes, salt: str) -> str:
    """The entry's name: a hash of the parse's inputs (`salt` names everything but the bytes)."""
    digest = hashlib.sha256(salt.encode())
    digest.update(b"\0")
    digest.update(data)
    return digest.hexdigest()


def _entry_path(key: str) -> str | None:
    root = cache_dir()
    return None if root is None else os.path.join(root, _SUBDIR, key + ".msgpack")


def lookup(key: str) -> list[Any] | Emitted | None:
    """The stored documents or JSON, or None (no entry, the cache off, or an entry that fails its checksum)."""
    path = _entry_path(key)
    if path is None:
        return None
    try:
        if hasattr(os, "getuid") and os.lstat(path).st_uid != os.getuid():
            return None  # only entries this user wrote are trusted (the directory may be shared)
        # A regular file (no link, FIFO or device: those would hang or never end) no bigger than an entry gets.
        blob = read_bounded(path, MAX_ENTRY_BYTES, follow=False)
        line = blob.find(b"\n")
        body = memoryview(blob)[line + 1:]  # views, not copies: an entry may hold 150 MB
        if line < 0 or hashlib.sha256(body).hexdigest().encode() != blob[:line]:
            return None
        if body[:1] in (_JSON_STREAM, _JSON_DOCUMENT):
            docs: Any = Emitted(body[1:], stream=body[:1] == _JSON_STREAM)
        else:
            with gc_paused():  # millions of containers, no cycles: collections would walk them all
                docs = msgspec.msgpack.decode(body)
    except (OSError, InputError, msgspec.DecodeError, RecursionError):  # RecursionError: nested past the stack
        return None
    with contextlib.suppress(OSError):  # a read-only cache still serves
        os.utime(path)  # last use, for pruning
    return docs if isinstance(docs, (list, Emitted)) else None


def store(key: str, docs: list[Any]) -> None:
    """Keep `docs` (plain data: str keys, no shared objects) under `key`; written whole or not at all."""
    if _entry_path(key) is None:
        return  # the cache is off: skip encoding every document for nothing
    try:
        body = msgspec.msgpack.encode(docs)
    except (TypeError, msgspec.EncodeError):  # a value msgpack cannot hold: not cached
        return
    _write(key, [body])


def store_json(key: str, data: bytes | bytearray | memoryview, *, stream: bool) -> None:
    """Keep rapidyaml's JSON of a text (`yamlfast.Emitted`, clean: no key set twice) under `key`."""
    if len(data) < MAX_ENTRY_BYTES - 100:  # the checksum line and the tag: what `lookup` reads back
        _write(key, [_JSON_STREAM if stream else _JSON_DOCUMENT, data])


def _write(key: str, body: list[bytes | bytearray | memoryview]) -> None:
    """Write an entry (its body in parts, never joined: a copy of up to 150 MB) whole or not at all."""
    path = _entry_path(key)
    if path is None:
        return
    folder = os.path.dirname(path)
    tmp = ""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        digest = hashlib.sha256()
        for part in body:
            digest.update(part)
        with os.fdopen(fd, "wb") as f:
            f.write(digest.hexdigest().encode() + b"\n")
            f.writelines(body)
        os.replace(tmp, path)
        tmp = ""
        _prune(folder)
    except OSError:
        pass
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _prune(folder: str) -> None:
    """Remove the least recently used entries while the folder holds more than `MAX_TOTAL_BYTES`."""
    entries = []
    for entry in os.scandir(folder):
        if entry.name.endswith((".msgpack", ".part")) and entry.is_file(follow_symlinks=False):
            st = entry.stat(follow_symlinks=False)
            entries.append((st.st_mtime, st.st_size, entry.path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= MAX_TOTAL_BYTES:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
        total -= size
