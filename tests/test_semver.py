"""Tests for drasim.api.semver: blang/semver v4 parsing and precedence, CEL's relaxed parsing."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drasim.api.semver import Semver, is_semver, matches_semver_spec
from drasim.errors import SemverError

PARSE_CASES: list[tuple[str, int, int, int, tuple[int | str, ...], tuple[str, ...]]] = [
    ("0.0.0", 0, 0, 0, (), ()),
    ("1.2.3", 1, 2, 3, (), ()),
    ("10.20.30", 10, 20, 30, (), ()),
    ("1.0.0-alpha", 1, 0, 0, ("alpha",), ()),
    ("1.0.0-alpha.1", 1, 0, 0, ("alpha", 1), ()),
    ("1.0.0-0.3.7", 1, 0, 0, (0, 3, 7), ()),
    ("1.0.0-x.7.z.92", 1, 0, 0, ("x", 7, "z", 92), ()),
    ("1.0.0-x-y-z.--", 1, 0, 0, ("x-y-z", "--"), ()),
    ("1.0.0-alpha+001", 1, 0, 0, ("alpha",), ("001",)),
    ("1.0.0+20130313144700", 1, 0, 0, (), ("20130313144700",)),
    ("1.0.0-beta+exp.sha.5114f85", 1, 0, 0, ("beta",), ("exp", "sha", "5114f85")),
    ("1.0.0+21AF26D3----117B344092BD", 1, 0, 0, (), ("21AF26D3----117B344092BD",)),
    ("1.2.3+b-c", 1, 2, 3, (), ("b-c",)),
    ("1.2.3-0a", 1, 2, 3, ("0a",), ()),
    ("1.2.3-rc.1+build.1", 1, 2, 3, ("rc", 1), ("build", "1")),
    ("18446744073709551615.0.0", 2**64 - 1, 0, 0, (), ()),
    ("1.2.3-18446744073709551615", 1, 2, 3, (2**64 - 1,), ()),
]


@pytest.mark.parametrize(("text", "major", "minor", "patch", "pre", "build"), PARSE_CASES,
                         ids=[c[0] for c in PARSE_CASES])
def test_parse(text: str, major: int, minor: int, patch: int, pre: tuple[int | str, ...],
               build: tuple[str, ...]) -> None:
    v = Semver.parse(text)
    assert (v.major, v.minor, v.patch, v.pre, v.build) == (major, minor, patch, pre, build)
    assert str(v) == text
    assert Semver(text) == v
    assert is_semver(text)
    assert is_semver(text, relaxed=True)
    assert matches_semver_spec(text)


ERROR_CASES: list[tuple[str, str]] = [
    ("", "Version string empty"),
    ("1", "No Major.Minor.Patch elements found"),
    ("1.2", "No Major.Minor.Patch elements found"),
    ("v1.2.3", 'Invalid character(s) found in major number "v1"'),
    ("a.b.c", 'Invalid character(s) found in major number "a"'),
    (" 1.2.3", 'Invalid character(s) found in major number " 1"'),
    ("1.b.3", 'Invalid character(s) found in minor number "b"'),
    ("1.2.c", 'Invalid character(s) found in patch number "c"'),
    ("1.2.3 ", 'Invalid character(s) found in patch number "3 "'),
    ("1.2.3\n", 'Invalid character(s) found in patch number "3\\n"'),
    ("1.2.3.4", 'Invalid character(s) found in patch number "3.4"'),
    ("1.2.\x01", 'Invalid character(s) found in patch number "\\x01"'),
    ("1.2.é", 'Invalid character(s) found in patch number "é"'),
    ("1.2.\u200b", 'Invalid character(s) found in patch number "\\u200b"'),
    ("01.2.3", 'Major number must not contain leading zeroes "01"'),
    ("1.02.3", 'Minor number must not contain leading zeroes "02"'),
    ("1.2.03", 'Patch number must not contain leading zeroes "03"'),
    ("1..3", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("1.2.", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("1.2.-beta", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("18446744073709551616.0.0", 'strconv.ParseUint: parsing "18446744073709551616": value out of range'),
    ("1.2.3-99999999999999999999",
     'strconv.ParseUint: parsing "99999999999999999999": value out of range'),
    ("1.2.3-", "Prerelease is empty"),
    ("1.2.3-a..b", "Prerelease is empty"),
    ("1.2.3-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ("1.2.3-a_b", 'Invalid character(s) found in prerelease "a_b"'),
    ("1.2.3-ä", 'Invalid character(s) found in prerelease "ä"'),
    ("1.2.3+", "Build meta data is empty"),
    ("1.2.3+a..b", "Build meta data is empty"),
    ("1.2.3+a+b", 'Invalid character(s) found in build meta data "a+b"'),
    ("1.2.3+a\"b", 'Invalid character(s) found in build meta data "a\\"b"'),
    # checks run in blang's order: major, minor, patch, then prerelease, then build
    ("01.x.3", 'Major number must not contain leading zeroes "01"'),
    ("1.2.x-01+", 'Invalid character(s) found in patch number "x"'),
    ("1.2.3-01+", 'Numeric PreRelease version must not contain leading zeroes "01"'),
]


@pytest.mark.parametrize(("text", "message"), ERROR_CASES, ids=[repr(c[0]) for c in ERROR_CASES])
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        Semver.parse(text)
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)
    assert not is_semver(text)


RELAXED_CASES: list[tuple[str, str]] = [
    ("1.0.0", "1.0.0"),
    ("v1.0.0", "1.0.0"),
    ("v0.0.1", "0.0.1"),
    ("1.0", "1.0.0"),
    ("1", "1.0.0"),
    ("v1", "1.0.0"),
    ("v2.1", "2.1.0"),
    ("01.01.01", "1.1.1"),
    ("00.00.00", "0.0.0"),
    ("1.00", "1.0.0"),
    ("v01.02.03-beta.1", "1.2.3-beta.1"),
    ("1.2.0-alpha", "1.2.0-alpha"),
    ("1.2.3+build.01", "1.2.3+build.01"),
    ("535.104.05", "535.104.5"),
    ("v550.54.15", "550.54.15"),
    ("12.2", "12.2.0"),
]


@pytest.mark.parametrize(("text", "expected"), RELAXED_CASES)
def test_parse_relaxed(text: str, expected: str) -> None:
    v = Semver.parse_relaxed(text)
    assert str(v) == expected
    assert is_semver(text, relaxed=True)
    assert is_semver(text) == (text == expected)


RELAXED_ERRORS: list[tuple[str, str]] = [
    ("", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("v", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("1.0-beta", "short version cannot contain PreRelease/Build meta data"),
    ("1-beta", "short version cannot contain PreRelease/Build meta data"),
    ("1+build", "short version cannot contain PreRelease/Build meta data"),
    ("V1.0.0", 'Invalid character(s) found in major number "0V1"'),  # a non-digit start gets a "0"
    ("vv1.0.0", 'Invalid character(s) found in major number "0v1"'),  # one "v" only; zeros pad
    (" 1.0.0", 'Invalid character(s) found in major number "0 1"'),  # no whitespace trimming
    ("1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ("1.2.3.4", 'Invalid character(s) found in patch number "3.4"'),
    ("hello", 'Invalid character(s) found in major number "0hello"'),
]


@pytest.mark.parametrize(("text", "message"), RELAXED_ERRORS)
def test_parse_relaxed_errors(text: str, message: str) -> None:
    with pytest.raises(SemverError) as info:
        Semver.parse_relaxed(text)
    assert str(info.value) == message
    assert not is_semver(text, relaxed=True)


def test_semver_org_precedence_example() -> None:
    ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
               "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "2.1.0", "2.1.1"]
    versions = [Semver.parse(s) for s in ordered]
    for i, a in enumerate(versions):
        for j, b in enumerate(versions):
            expected = (i > j) - (i < j)
            assert a.compare(b) == expected, (a, b)
            assert (a < b) is (i < j)
            assert (a <= b) is (i <= j)
            assert (a > b) is (i > j)
            assert (a >= b) is (i >= j)
            assert (a == b) is (i == j)
            assert (a != b) is (i != j)
    assert sorted(reversed(versions)) == versions


COMPARE_CASES: list[tuple[str, str, int]] = [
    ("1.2.3", "1.2.3", 0),
    ("1.2.3", "2.0.0", -1),
    ("1.2.3", "0.1.2", 1),
    ("1.10.0", "1.9.0", 1),  # numeric, not lexical
    ("1.0.0-2", "1.0.0-10", -1),  # numeric identifiers compare numerically
    ("1.0.0-a10", "1.0.0-a2", -1),  # alphanumeric ones compare as (ASCII) strings
    ("1.0.0-99", "1.0.0-a", -1),  # numeric before alphanumeric
    ("1.0.0-A", "1.0.0-a", -1),
    ("1.0.0-alpha", "1.0.0-alpha.0", -1),  # fewer identifiers first
    ("1.0.0-rc.1", "1.0.0", -1),
    ("1.0.0+build.1", "1.0.0+build.2", 0),  # build metadata is ignored
    ("1.0.0+build", "1.0.0", 0),
    ("1.0.0-rc+a", "1.0.0-rc+b", 0),
]


@pytest.mark.parametrize(("a", "b", "expected"), COMPARE_CASES)
def test_compare(a: str, b: str, expected: int) -> None:
    x, y = Semver.parse(a), Semver.parse(b)
    assert x.compare(y) == expected
    assert y.compare(x) == -expected
    assert (x == y) is (expected == 0)
    if expected == 0:
        assert hash(x) == hash(y)


def test_equal_versions_keep_their_build_metadata() -> None:
    a, b = Semver.parse("1.0.0+a"), Semver.parse("1.0.0+b")
    assert a == b
    assert str(a) == "1.0.0+a"
    assert str(b) == "1.0.0+b"
    assert len({a, b}) == 1


def test_api_validation_regex_differs_from_the_parser() -> None:
    # Validation accepts numbers of any size; the CEL conversion (blang) needs uint64.
    assert matches_semver_spec("99999999999999999999.0.0")
    assert not is_semver("99999999999999999999.0.0")
    for bad in ("1.0", "01.0.0", "v1.0.0", "1.0.0-01", "1.0.0-", "1.0.0+", "1.0.0\n", "１.0.0"):
        assert not matches_semver_spec(bad)
        assert not is_semver(bad)


def test_other_types() -> None:
    v = Semver.parse("1.2.3")
    assert v != "1.2.3"
    with pytest.raises(TypeError):
        _ = v < "1.2.3"  # type: ignore[operator]
    with pytest.raises(TypeError):
        Semver.parse(1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Semver.parse_relaxed(None)  # type: ignore[arg-type]


def test_immutable_picklable() -> None:
    v = Semver.parse("1.2.3-rc.1+b")
    with pytest.raises(AttributeError):
        v.major = 2
    assert copy.deepcopy(v) is v
    w = pickle.loads(pickle.dumps(v))
    assert w == v
    assert str(w) == "1.2.3-rc.1+b"
    assert repr(v) == "Semver('1.2.3-rc.1+b')"


# ----------------------------------------------------------------------------------------- properties

_numbers = st.integers(0, 2**64 - 1) | st.integers(0, 20)
_alnum = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-", min_size=1, max_size=6)
_pre_identifier = _numbers.map(str) | _alnum.filter(lambda s: not s.isdigit())
_build_identifier = _alnum


@st.composite
def version_strings(draw: st.DrawFn) -> str:
    s = f"{draw(_numbers)}.{draw(_numbers)}.{draw(_numbers)}"
    pre = draw(st.lists(_pre_identifier, max_size=4))
    build = draw(st.lists(_build_identifier, max_size=3))
    if pre:
        s += "-" + ".".join(pre)
    if build:
        s += "+" + ".".join(build)
    return s


versions = version_strings().map(Semver.parse)


@given(version_strings())
def test_round_trip(text: str) -> None:
    v = Semver.parse(text)
    assert str(v) == text
    assert Semver.parse(str(v)) == v
    assert Semver.parse_relaxed(text) == v
    assert matches_semver_spec(text)


@given(versions, versions)
def test_antisymmetry_and_consistency(a: Semver, b: Semver) -> None:
    assert a.compare(b) == -b.compare(a)
    assert (a == b) == (a.compare(b) == 0)
    assert (a < b) == (a.compare(b) < 0)
    assert (a >= b) == (not a < b)
    if a == b:
        assert hash(a) == hash(b)
        assert (a.major, a.minor, a.patch, a.pre) == (b.major, b.minor, b.patch, b.pre)


@given(versions, versions, versions)
def test_transitivity(a: Semver, b: Semver, c: Semver) -> None:
    x, y, z = sorted([a, b, c])
    assert x <= y <= z
    assert x <= z
    if a <= b and b <= c:
        assert a <= c
    if a < b and b < c:
        assert a < c


@given(versions)
def test_prerelease_sorts_before_release(v: Semver) -> None:
    release = Semver.parse(f"{v.major}.{v.minor}.{v.patch}")
    if v.pre:
        assert v < release
    else:
        assert v == release
