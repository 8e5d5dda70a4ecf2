"""Regular expressions (`matches`, Kubernetes `find`/`findAll`): RE2 syntax on Python's `re`."""

from __future__ import annotations

import re
from typing import Any

from drasim.cel.library import Function, member
from drasim.cel.library.standard import no_overload
from drasim.cel.values import EvalError

_CACHE: dict[str, re.Pattern[str] | str] = {}
_CACHE_MAX = 4096

# Group openers RE2 rejects: lookahead/lookbehind, atomic groups, named backreferences.
_BAD_GROUPS = ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?P=")


def _translate(pattern: str) -> str:
    """Rewrite the RE2 constructs whose meaning differs in Python."""
    out = []
    i = 0
    n = len(pattern)
    in_class = False
    multiline = re.match(r"\(\?[a-zA-Z]*m", pattern) is not None
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if nxt in "123456789" and not in_class:
                raise re.error("invalid escape sequence: backreferences are not supported")
            if nxt == "z" and not in_class:
                out.append(r"\Z")
            elif nxt == "Z" and not in_class:
                raise re.error("invalid escape sequence: `\\Z`")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[" and pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                if end > 0:
                    name = pattern[i + 2:end]
                    cls = _POSIX.get(name.lstrip("^"))
                    if cls is None:
                        raise re.error(f"invalid character class range: `[:{name}:]`")
                    out.append(cls)
                    i = end + 2
                    continue
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append(r"\]")
                i += 1
            continue
        if c == "$" and not multiline:
            out.append(r"\Z")
            i += 1
            continue
        if c == "(" and pattern.startswith(_BAD_GROUPS, i):
            raise re.error("invalid or unsupported Perl syntax")
        if c in "*+?}" and pattern.startswith("+", i + 1):
            raise re.error("invalid nested repetition operator")
        out.append(c)
        i += 1
    return "".join(out)


_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7F", "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}


def compile_regex(pattern: str) -> re.Pattern[str]:
    """Compile (cached) or raise re.error with a message."""
    hit = _CACHE.get(pattern)
    if hit is not None:
        if isinstance(hit, str):
            raise re.error(hit)
        return hit
    try:
        compiled = re.compile(_translate(pattern))
    except re.error as e:
        if len(_CACHE) > _CACHE_MAX:
            _CACHE.clear()
        _CACHE[pattern] = str(e)
        raise
    if len(_CACHE) > _CACHE_MAX:
        _CACHE.clear()
    _CACHE[pattern] = compiled
    return compiled


def regex_error(pattern: str) -> str | None:
    """The compile error of a pattern, or None when it is valid."""
    try:
        compile_regex(pattern)
    except re.error as e:
        return str(e)
    return None


def matches(s: Any, pattern: Any) -> bool:
    if type(s) is not str or type(pattern) is not str:
        raise no_overload()
    try:
        rx = compile_regex(pattern)
    except re.error as e:
        raise EvalError(f"error parsing regexp: {e}") from None
    return rx.search(s) is not None


def find(s: Any, pattern: Any) -> str:
    if type(s) is not str or type(pattern) is not str:
        raise no_overload()
    try:
        rx = compile_regex(pattern)
    except re.error as e:
        raise EvalError(f"Illegal regex: error parsing regexp: {e}") from None
    m = rx.search(s)
    return m.group(0) if m else ""


def find_all(s: Any, pattern: Any, limit: Any = -1) -> list[str]:
    if type(s) is not str or type(pattern) is not str or type(limit) is not int:
        raise no_overload()
    try:
        rx = compile_regex(pattern)
    except re.error as e:
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
