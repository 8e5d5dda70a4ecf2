"""Regular expressions (`matches`, Kubernetes `find`/`findAll`): RE2 (linear time, like Go's regexp)."""

from __future__ import annotations

from typing import Any

import re2
from re2 import _re2

from drasim.cel.library import Function, member
from drasim.cel.library.standard import no_overload
from drasim.cel.values import EvalError

_CACHE: dict[str, Any] = {}  # pattern -> compiled RE2, or the error text
_CACHE_MAX = 4096

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every bad pattern on stderr
# The compiled RE2 object is used directly on UTF-8 bytes: the `re`-like wrapper converts every offset back
# to characters in Python and costs ~7x more per call, which the per-device selector evaluation feels.
_UNANCHORED = re2._Anchor.UNANCHORED
_NO_MATCH = (-1, -1)

# RE2's error texts -> Go regexp/syntax's ErrorCode texts (cel-go and Kubernetes use Go's regexp).
_GO_CODES = {
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
    "pattern too large - compile failed": "expression too large",
}


class RegexError(ValueError):
    """A pattern RE2 (and Go) rejects; the message is Go's, without the "error parsing regexp: " prefix."""


def _go_message(pattern: str, exc: Exception) -> str:
    raw = exc.args[0] if exc.args else str(exc)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    for code, go in sorted(_GO_CODES.items(), key=lambda kv: -len(kv[0])):
        if text.startswith(code):
            arg = text[len(code):].removeprefix(": ")
            if code in ("missing )", "missing ]") or not arg:
                arg = pattern  # Go quotes the whole expression here
            return f"{go}: `{arg}`"
    return text


def compile_regex(pattern: str) -> Any:
    """Compile (cached) or raise RegexError with Go's message."""
    hit = _CACHE.get(pattern)
    if hit is not None:
        if isinstance(hit, str):
            raise RegexError(hit)
        return hit
    if len(_CACHE) > _CACHE_MAX:
        _CACHE.clear()
    compiled = _re2.RE2(pattern.encode("utf-8", "surrogatepass"), _OPTIONS)
    if not compiled.ok():
        _CACHE[pattern] = message = _go_message(pattern, re2.error(compiled.error()))
        raise RegexError(message)
    _CACHE[pattern] = compiled
    return compiled


def _search(rx: Any, text: bytes, pos: int = 0) -> tuple[int, int]:
    """The leftmost-first match at or after byte `pos` (ends included), or (-1, -1)."""
    span: tuple[int, int] = rx.Match(_UNANCHORED, text, pos, len(text))[0]
    return span


def regex_error(pattern: str) -> str | None:
    """The compile error of a pattern, or None when it is valid."""
    try:
        compile_regex(pattern)
    except RegexError as e:
        return str(e)
    return None


def _compiled(pattern: str, prefix: str) -> Any:
    """The compiled pattern; a bad one is the runtime error upstream's function gives (`prefix` differs:
    `matches` is cel-go's own, `find`/`findAll` the Kubernetes library's)."""
    try:
        return compile_regex(pattern)
    except RegexError as e:
        raise EvalError(f"{prefix}error parsing regexp: {e}") from None


def matches(s: Any, pattern: Any) -> bool:
    if type(s) is not str or type(pattern) is not str:
        raise no_overload()
    rx = _compiled(pattern, "")
    return _search(rx, s.encode("utf-8", "surrogatepass")) != _NO_MATCH


def find(s: Any, pattern: Any) -> str:
    if type(s) is not str or type(pattern) is not str:
        raise no_overload()
    rx = _compiled(pattern, "Illegal regex: ")
    text = s.encode("utf-8", "surrogatepass")
    start, end = _search(rx, text)
    return text[start:end].decode("utf-8", "surrogatepass") if start >= 0 else ""


def find_all(s: Any, pattern: Any, limit: Any = -1) -> list[str]:
    if type(s) is not str or type(pattern) is not str or type(limit) is not int:
        raise no_overload()
    rx = _compiled(pattern, "Illegal regex: ")
    if limit == 0:
        return []
    text = s.encode("utf-8", "surrogatepass")
    out: list[str] = []
    pos, prev_end, n = 0, -1, len(text)
    while pos <= n:  # Go's FindAllString loop
        start, end = _search(rx, text, pos)
        if start < 0:
            break
        accept = True
        if end == pos:  # an empty match: never right after the previous match; step one character
            accept = start != prev_end
            pos += _char_len(text, pos) if pos < n else 1
        else:
            pos = end
        prev_end = end
        if accept:
            out.append(text[start:end].decode("utf-8", "surrogatepass"))
            if 0 < limit <= len(out):
                break
    return out


def _char_len(text: bytes, pos: int) -> int:
    lead = text[pos]
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


FUNCTIONS: list[Function] = [
    Function("find", (member("string_find_string", ("string", "string"), "string"),), find),
    Function("findAll", (
        member("string_find_all_string", ("string", "string"), "list(string)"),
        member("string_find_all_string_int", ("string", "string", "int"), "list(string)"),
    ), find_all),
]
