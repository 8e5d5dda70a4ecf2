"""How deep a JSON input nests, checked in C before any (recursive) decoder reads it."""

from __future__ import annotations

import itertools
import re

from drasim.errors import InputError
from drasim.sources.jsonkeys import JSON_TOKEN

__all__ = ["MAX_DEPTH", "check_json_depth"]

# Collections nested in collections: Kubernetes objects nest a few dozen levels at most; refusing deeper
# documents before they are built keeps the (recursive, C) YAML composer from overflowing the stack.
MAX_DEPTH = 200

_NOT_STRUCTURE = bytes(range(256)).translate(None, b'[]{}"')
_STEPS = bytes(1 if c in b"[{" else 255 if c in b"]}" else 0 for c in range(256))  # -1 as a signed byte


def check_json_depth(data: bytes, *, source: str, compact: bytes | None = None) -> None:
    """`InputError` naming the line and column of the first array or object more than `MAX_DEPTH` levels
    down, before any (recursive) decoder sees the JSON. Linear, in C but for one pass over the brackets (1.3 ms
    per MB of a fleet dump, a tenth of the decode): escapes go first, then every byte but brackets and quotes,
    then the strings, which pair up as the quotes left alternate (dropping two adjacent ones keeps that).
    `compact`: the data's `compact_json` (or `minify`), read instead when the data has no escape (same brackets
    and quotes: with an escape, a malformed `\\ "` would turn into an escaped quote)."""
    unescaped = (data.replace(b"\\\\", b"").replace(b'\\"', b"") if b"\\" in data
                 else compact if compact is not None else data)
    structure = unescaped.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in structure:  # strings holding brackets: few
        structure = re.sub(rb'"[^"]*"', b"", structure)
    if _balanced_depth(structure) is not None:
        return
    steps = memoryview(structure.translate(_STEPS)).cast("b")
    if max(itertools.accumulate(steps), default=0) > MAX_DEPTH:
        raise _locate_too_deep(data.decode("utf-8", "replace"), source)


_ONE_BRACKET = bytes.maketrans(b"[]", b"{}")


def _balanced_depth(structure: bytes) -> int | None:
    """The nesting depth of balanced brackets, if it is at most `MAX_DEPTH`, else None (unbalanced or deep: the
    exact walk decides). Each pass drops the innermost pairs, one level: a few passes over a shrinking string
    instead of a running sum over every bracket (the depth counts arrays and objects alike, so one kind will do)."""
    level = structure.translate(_ONE_BRACKET)
    depth = 0
    while level:
        inner = level.replace(b"{}", b"")
        if len(inner) == len(level) or depth == MAX_DEPTH:
            return None
        level, depth = inner, depth + 1
    return depth


def _locate_too_deep(text: str, source: str) -> InputError:
    """Where the depth passes `MAX_DEPTH` (only on the error path: a Python walk over the tokens)."""
    depth = 0
    for m in JSON_TOKEN.finditer(text):
        token = m.group(0)
        if token in ("{", "["):
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, m.start()) + 1
                column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                return InputError(f"invalid JSON (line {line}, column {column}): nested more than {MAX_DEPTH} "
                                  "levels deep", source=source)
        elif token in ("}", "]"):
            depth -= 1
    return InputError(f"invalid JSON: nested more than {MAX_DEPTH} levels deep", source=source)
