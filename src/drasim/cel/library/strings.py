"""cel-go ext.Strings v2 (charAt, indexOf, join, format, strings.quote...) and list indexOf/lastIndexOf."""

from __future__ import annotations

import math
from typing import Any

from drasim.cel.library import Function, glob, member
from drasim.cel.library.standard import format_double, no_overload, to_string
from drasim.cel.values import Duration, Timestamp, TypeValue, UInt, cel_equal, type_name
from drasim.cel.values import EvalError as _E


def _s(v: Any) -> str:
    if type(v) is not str:
        raise no_overload()
    return v


def _i(v: Any) -> int:
    if type(v) is not int:
        raise no_overload()
    return v


def char_at(s: Any, i: Any) -> str:
    s, i = _s(s), _i(i)
    if i < 0 or i > len(s):
        raise _E(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def _decided(s: str, sub: str, offset: int) -> int | None:
    """The answer of indexOf/lastIndexOf when the arguments alone give it (an empty `sub` is found at
    `offset`; an offset past the string finds nothing; a negative one is an error), else None."""
    if sub == "":
        return offset
    if offset < 0:
        raise _E(f"index out of range: {offset}")
    return -1 if offset >= len(s) else None


def _index_of_str(s: str, sub: str, offset: int) -> int:
    decided = _decided(s, sub, offset)
    return s.find(sub, offset) if decided is None else decided


def _last_index_of_str(s: str, sub: str, offset: int) -> int:
    decided = _decided(s, sub, offset)
    if decided is not None:
        return decided
    start = min(offset, len(s) - len(sub))
    if start < 0:
        return -1
    return s.rfind(sub, 0, start + len(sub))


def index_of(target: Any, arg: Any, offset: Any = None) -> int:
    if type(target) is str:
        return _index_of_str(target, _s(arg), 0 if offset is None else _i(offset))
    if isinstance(target, (list, tuple)) and offset is None:
        for i, x in enumerate(target):
            if cel_equal(x, arg):
                return i
        return -1
    raise no_overload()


def last_index_of(target: Any, arg: Any, offset: Any = None) -> int:
    if type(target) is str:
        sub = _s(arg)
        if offset is None:
            if sub == "":
                return len(target)
            return _last_index_of_str(target, sub, len(target) - 1)
        return _last_index_of_str(target, sub, _i(offset))
    if isinstance(target, (list, tuple)) and offset is None:
        for i in range(len(target) - 1, -1, -1):
            if cel_equal(target[i], arg):
                return i
        return -1
    raise no_overload()


def lower_ascii(s: Any) -> str:
    return "".join(c.lower() if c < "\x80" else c for c in _s(s))


def upper_ascii(s: Any) -> str:
    return "".join(c.upper() if c < "\x80" else c for c in _s(s))


def _go_replace(s: str, old: str, new: str, n: int) -> str:
    if n < 0:
        if old == "":
            return new + new.join(s) + new if s else new
        return s.replace(old, new)
    if old == "":
        out = []
        count = 0
        for ch in s:
            if count < n:
                out.append(new)
                count += 1
            out.append(ch)
        if count < n:
            out.append(new)
        return "".join(out)
    return s.replace(old, new, n)


def replace(s: Any, old: Any, new: Any, n: Any = None) -> str:
    return _go_replace(_s(s), _s(old), _s(new), -1 if n is None else _i(n))


def _go_split(s: str, sep: str, n: int) -> list[str]:
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return [*chars[:n - 1], "".join(chars[n - 1:])]
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


def split(s: Any, sep: Any, n: Any = None) -> list[str]:
    return _go_split(_s(s), _s(sep), -1 if n is None else _i(n))


def substring(s: Any, start: Any, end: Any = None) -> str:
    s, start = _s(s), _i(start)
    if end is None:
        if start < 0 or start > len(s):
            raise _E(f"index out of range: {start}")
        return s[start:]
    end = _i(end)
    if start > end:
        raise _E(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise _E(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise _E(f"index out of range: {end}")
    return s[start:end]


# Go's unicode.IsSpace set, which strings.TrimSpace uses.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009" \
            "\u200a\u2028\u2029\u202f\u205f\u3000"


def trim(s: Any) -> str:
    return _s(s).strip(_GO_SPACE)


def join(lst: Any, sep: Any = "") -> str:
    if not isinstance(lst, (list, tuple)):
        raise no_overload()
    sep = _s(sep)
    for x in lst:
        if type(x) is not str:
            raise _E(f"join: invalid input: {x}")
    return sep.join(lst)


_QUOTE = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
          "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def quote(s: Any) -> str:
    s = _s(s)
    out = []
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            ch = "\ufffd"
        out.append(_QUOTE.get(ch, ch))
    return '"' + "".join(out) + '"'


# --- format --------------------------------------------------------------------------------------

def _format_s(v: Any, nested: bool = False) -> str:
    t = type(v)
    if t is str:
        return quote(v) if nested else v
    if t is float:
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return format_double(v)
    if t is bytes:
        return ('b' + quote(v.decode("utf-8", "replace"))) if nested else v.decode("utf-8", "replace")
    if v is None:
        return "null"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_format_s(x, True) for x in v) + "]"
    if isinstance(v, dict):
        items = sorted(((_format_s(k, True), _format_s(x, True)) for k, x in v.items()))
        return "{" + ", ".join(f"{k}: {x}" for k, x in items) + "}"
    if t in (bool, int, UInt, Duration, Timestamp, TypeValue):
        return to_string(v)
    return str(v)


def _fmt_err(what: str, arg: Any) -> str:
    return f"error during formatting: {what}, was given {type_name(arg)}"


def _fmt_clause(verb: str, precision: int | None, arg: Any) -> str:
    t = type(arg)
    if verb == "s":
        return _format_s(arg)
    if verb == "d":
        if t is int or t is UInt:
            return str(int(arg))
        if t is float and (math.isnan(arg) or math.isinf(arg)):
            return _format_s(arg)
        raise _E(_fmt_err("decimal clause can only be used on integers", arg))
    if verb in ("f", "e"):
        p = 6 if precision is None else precision
        if t is int or t is UInt:
            arg = float(arg)
        elif t is str and arg in ("NaN", "Infinity", "-Infinity"):
            return arg
        elif t is not float:
            raise _E(_fmt_err("fixed-point clause can only be used on doubles", arg))
        if math.isnan(arg):
            return "NaN"
        if math.isinf(arg):
            return "Infinity" if arg > 0 else "-Infinity"
        return f"{arg:.{p}{verb}}"
    if verb == "b":
        if t is bool:
            return "1" if arg else "0"
        if t is int or t is UInt:
            return format(int(arg), "b")
        raise _E(_fmt_err("only integers and bools can be formatted as binary", arg))
    if verb in ("x", "X"):
        if t is int or t is UInt:
            s = format(int(arg), "x")
        elif t is str:
            s = arg.encode("utf-8").hex()
        elif t is bytes:
            s = arg.hex()
        else:
            raise _E(_fmt_err("only integers, byte buffers, and strings can be formatted as hex", arg))
        return s.upper() if verb == "X" else s
    if verb == "o":
        if t is int or t is UInt:
            return format(int(arg), "o")
        raise _E(_fmt_err("octal clause can only be used on integers", arg))
    raise _E(f'could not parse formatting clause: unrecognized formatting clause "{verb}"')


def format_(fmt: Any, args: Any) -> str:
    fmt = _s(fmt)
    if not isinstance(args, (list, tuple)):
        raise no_overload()
    out = []
    i = 0
    argi = 0
    n = len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        i += 1
        if i < n and fmt[i] == "%":
            out.append("%")
            i += 1
            continue
        precision = None
        if i < n and fmt[i] == ".":
            j = i + 1
            while j < n and fmt[j].isdigit():
                j += 1
            if j == i + 1:
                raise _E("could not parse formatting clause: error while parsing precision")
            precision = int(fmt[i + 1:j])
            i = j
        if i >= n:
            raise _E('could not parse formatting clause: unrecognized formatting clause ""')
        verb = fmt[i]
        i += 1
        if argi >= len(args):
            raise _E(f"index {argi} out of range")
        out.append(_fmt_clause(verb, precision, args[argi]))
        argi += 1
    return "".join(out)


_LS = "list(string)"

FUNCTIONS: list[Function] = [
    Function("charAt", (member("string_char_at_int", ("string", "int"), "string"),), char_at),
    Function("indexOf", (
        member("string_index_of_string", ("string", "string"), "int"),
        member("string_index_of_string_int", ("string", "string", "int"), "int"),
        member("list_a_index_of_int", ("list(A)", "A"), "int"),
    ), index_of),
    Function("lastIndexOf", (
        member("string_last_index_of_string", ("string", "string"), "int"),
        member("string_last_index_of_string_int", ("string", "string", "int"), "int"),
        member("list_a_last_index_of_int", ("list(A)", "A"), "int"),
    ), last_index_of),
    Function("lowerAscii", (member("string_lower_ascii", ("string",), "string"),), lower_ascii),
    Function("upperAscii", (member("string_upper_ascii", ("string",), "string"),), upper_ascii),
    Function("replace", (
        member("string_replace_string_string", ("string", "string", "string"), "string"),
        member("string_replace_string_string_int", ("string", "string", "string", "int"), "string"),
    ), replace),
    Function("split", (
        member("string_split_string", ("string", "string"), _LS),
        member("string_split_string_int", ("string", "string", "int"), _LS),
    ), split),
    Function("substring", (
        member("string_substring_int", ("string", "int"), "string"),
        member("string_substring_int_int", ("string", "int", "int"), "string"),
    ), substring),
    Function("trim", (member("string_trim", ("string",), "string"),), trim),
    Function("join", (
        member("list_join", (_LS,), "string"),
        member("list_join_string", (_LS, "string"), "string"),
    ), join),
    Function("format", (member("string_format", ("string", "list(dyn)"), "string"),), format_),
    Function("strings.quote", (glob("strings_quote", ("string",), "string"),), quote),
]
