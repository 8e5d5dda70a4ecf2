"""Regular expressions (`matches`, Kubernetes `find`/`findAll`): RE2 (linear time, like Go's regexp)."""

from __future__ import annotations

from typing import Any

import re2

from drasim.cel.library import Function, member
from drasim.cel.library.standard import no_overload
from drasim.cel.values import EvalError

_CACHE: dict[str, Any] = {}  # pattern -> compiled RE2, or the error text
_CACHE_MAX = 4096

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print every bad pattern on stderr

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
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        _CACHE[pattern] = message = _go_message(pattern, exc)
        raise RegexError(message) from None
    _CACHE[pattern] = compiled
    return compiled


def regex_error(pattern: str) -> str | None:
    """The compile error of a pattern, or None when it is valid."""
    try:
        compile_regex(pattern)
    except RegexError as e:
        return str(e)
    return None


def matches(s: Any, pattern: Any) -> bool:
    if type(s) is not str or type(pattern) is not str:
        raise no_overload()
    try:
        rx = compile_regex(pattern)
    except RegexError as e:
        raise EvalError(f"error parsing regexp: {e}") from None
    return rx.search(s) is not None


def find(s: Any, pattern: Any) -> str:
    if type(s) is not str or type(pattern) is not str:
        raise no_overload()
    try:
        rx = compile_regex(pattern)
    except RegexError as e:
        raise EvalError(f"Illegal regex: error parsing regexp: {e}") from None
    m = rx.search(s)
    return m.group(0) if m else ""


def find_all(s: Any, pattern: Any, limit: Any = -1) -> list[str]:
    if type(s) is not str or type(pattern) is not str or type(limit) is not int:
        raise no_overload()
    try:
        rx = compile_regex(pattern)
    except RegexError as e:
        raise EvalError(f"Illegal regex: error parsing regexp: {e}") from None
    if limit == 0:
        return []
    out: list[str] = []
    prev_end = -1
    for m in rx.finditer(s):
        # Go drops an empty match that abuts the previous match.
        if m.start() == m.end() and m.start() == prev_end:
            continue
        out.append(m.group(0))
        prev_end = m.end()
        if 0 < limit <= len(out):
            break
    return out


FUNCTIONS: list[Function] = [
    Function("find", (member("string_find_string", ("string", "string"), "string"),), find),
    Function("findAll", (
        member("string_find_all_string", ("string", "string"), "list(string)"),
        member("string_find_all_string_int", ("string", "string", "int"), "list(string)"),
    ), find_all),
]
