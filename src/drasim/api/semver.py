"""Semantic versions as the Kubernetes CEL semver library (blang/semver v4) and API validation see them."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Final, NoReturn

from drasim.errors import SemverError

__all__ = ["SEMVER_SPEC_REGEX", "Semver", "is_semver", "matches_semver_spec"]

_DIGITS: Final = frozenset("0123456789")
_ALPHANUM: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX: Final = (1 << 64) - 1

# The regular expression semver.org suggests, which the resource.k8s.io API validation applies to
# `version` attributes ("must be a string compatible with semver.org spec 2.0.0"). Unlike the parser
# it puts no bound on the numbers; `[0-9]` because Go's `\d` is ASCII-only.
SEMVER_SPEC_REGEX: Final = re.compile(
    r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-((?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)

_SHORT_ESCAPES: Final = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                         "\v": "\\v", "\\": "\\\\", '"': '\\"'}


def _go_quote(s: str) -> str:
    """Go's `%q` / `strconv.Quote` for a string (error messages quote the offending part so)."""
    out = ['"']
    for ch in s:
        esc = _SHORT_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ch.isprintable():  # the same classes as Go's unicode.IsPrint: L, M, N, P, S and ' '
            out.append(ch)
        else:
            r = ord(ch)
            if r < 0x20 or r == 0x7F:
                out.append(f"\\x{r:02x}")
            elif 0xD800 <= r <= 0xDFFF:
                out.append("\\ufffd")  # not valid UTF-8: Go would see U+FFFD
            elif r < 0x10000:
                out.append(f"\\u{r:04x}")
            else:
                out.append(f"\\U{r:08x}")
    out.append('"')
    return "".join(out)


def _fail(message: str) -> NoReturn:
    raise SemverError(message)


def _only(s: str, allowed: frozenset[str]) -> bool:
    return all(c in allowed for c in s)


def _parse_uint(s: str) -> int:
    """strconv.ParseUint(s, 10, 64) for a string of ASCII digits (possibly empty)."""
    if not s:
        _fail(f"strconv.ParseUint: parsing {_go_quote(s)}: invalid syntax")
    digits = s.lstrip("0") or "0"
    if len(digits) > 20 or int(digits) > _UINT64_MAX:
        _fail(f"strconv.ParseUint: parsing {_go_quote(s)}: value out of range")
    return int(digits)


def _number(s: str, what: str) -> int:
    if not _only(s, _DIGITS):
        _fail(f"Invalid character(s) found in {what.lower()} number {_go_quote(s)}")
    if len(s) > 1 and s[0] == "0":
        _fail(f"{what} number must not contain leading zeroes {_go_quote(s)}")
    return _parse_uint(s)


def _pre_identifier(s: str) -> int | str:
    if not s:
        _fail("Prerelease is empty")
    if _only(s, _DIGITS):
        if len(s) > 1 and s[0] == "0":
            _fail(f"Numeric PreRelease version must not contain leading zeroes {_go_quote(s)}")
        return _parse_uint(s)
    if _only(s, _ALPHANUM):
        return s
    _fail(f"Invalid character(s) found in prerelease {_go_quote(s)}")


@lru_cache(maxsize=4096)
def _parse_strict(s: str) -> Semver:
    """blang/semver v4 `Parse`, check for check and in the same order."""
    if not s:
        _fail("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        _fail("No Major.Minor.Patch elements found")
    major = _number(parts[0], "Major")
    minor = _number(parts[1], "Minor")
    patch_str = parts[2]
    build: list[str] = []
    plus = patch_str.find("+")
    if plus != -1:
        build = patch_str[plus + 1:].split(".")
        patch_str = patch_str[:plus]
    prerelease: list[str] = []
    dash = patch_str.find("-")
    if dash != -1:
        prerelease = patch_str[dash + 1:].split(".")
        patch_str = patch_str[:dash]
    patch = _number(patch_str, "Patch")
    pre = tuple(_pre_identifier(p) for p in prerelease)
    for b in build:
        if not b:
            _fail("Build meta data is empty")
        if not _only(b, _ALPHANUM):
            _fail(f"Invalid character(s) found in build meta data {_go_quote(b)}")
    return Semver._new(major, minor, patch, pre, tuple(build))


@lru_cache(maxsize=4096)
def _parse_relaxed(s: str) -> Semver:
    """apiserver's `normalizeAndParse` (CEL `semver(s, true)`): like blang's ParseTolerant, without
    trimming whitespace: drop one leading "v", strip leading zeros of the dot-separated parts, pad a
    missing minor/patch with "0", then parse strictly."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p.encode("utf-8", "surrogatepass")) > 1:  # Go counts bytes
            p = p.lstrip("0")
            if not p or p[0] not in _DIGITS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            _fail("short version cannot contain PreRelease/Build meta data")
        parts.extend("0" for _ in range(3 - len(parts)))
    return _parse_strict(".".join(parts))


class Semver:
    """A parsed semantic version (blang/semver v4 `Version`). Immutable and hashable.

    Equality and ordering follow semver 2.0.0 precedence as blang's `Compare` implements it: build
    metadata is ignored (`1.0.0+a == 1.0.0+b`, like CEL's `==` on semver values), numeric prerelease
    identifiers compare numerically and before alphanumeric ones, and a prerelease version sorts
    before the release.
    """

    __slots__ = ("_key", "build", "major", "minor", "patch", "pre")

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...]  # numeric identifiers as int, alphanumeric ones as str
    build: tuple[str, ...]
    _key: tuple[Any, ...]

    def __new__(cls, s: str) -> Semver:
        return _parse_strict(s)

    @classmethod
    def _new(cls, major: int, minor: int, patch: int, pre: tuple[int | str, ...],
             build: tuple[str, ...]) -> Semver:
        v = object.__new__(cls)
        setter = object.__setattr__
        setter(v, "major", major)
        setter(v, "minor", minor)
        setter(v, "patch", patch)
        setter(v, "pre", pre)
        setter(v, "build", build)
        pre_key = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in pre)
        setter(v, "_key", (major, minor, patch, 0, pre_key) if pre else (major, minor, patch, 1, ()))
        return v

    @staticmethod
    def parse(s: str) -> Semver:
        """Strict parse (CEL `semver(s)`, blang `Parse`); raises `SemverError` with blang's message."""
        if not isinstance(s, str):
            raise TypeError(f"Semver.parse() needs a str, not {type(s).__name__}")
        return _parse_strict(s)

    @staticmethod
    def parse_relaxed(s: str) -> Semver:
        """CEL `semver(s, true)`: "v" prefix, missing minor/patch and leading zeros are normalized."""
        if not isinstance(s, str):
            raise TypeError(f"Semver.parse_relaxed() needs a str, not {type(s).__name__}")
        return _parse_relaxed(s)

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1 (CEL `compareTo`)."""
        a, b = self._key, other._key
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key == other._key

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key != other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __lt__(self, other: Semver) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key < other._key

    def __le__(self, other: Semver) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key <= other._key

    def __gt__(self, other: Semver) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key > other._key

    def __ge__(self, other: Semver) -> bool:
        if not isinstance(other, Semver):
            return NotImplemented
        return self._key >= other._key

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s

    def __repr__(self) -> str:
        return f"Semver({str(self)!r})"

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("Semver is immutable")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("Semver is immutable")

    def __copy__(self) -> Semver:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Semver:
        return self

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_parse_strict, (str(self),))


def is_semver(s: str, relaxed: bool = False) -> bool:
    """CEL `isSemver(s)` / `isSemver(s, true)`."""
    try:
        if relaxed:
            _parse_relaxed(s)
        else:
            _parse_strict(s)
    except SemverError:
        return False
    return True


def matches_semver_spec(s: str) -> bool:
    """The resource.k8s.io API validation check for `version` attributes (semver.org's regex)."""
    return SEMVER_SPEC_REGEX.fullmatch(s) is not None
