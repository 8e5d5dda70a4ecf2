"""DeviceInput's fast paths equal the plain ones: `_converts` (the lean conversion pre-check) never passes a
device `_check` fails, `check` gives `_check`'s error, and equal attribute tokens mean equal attributes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.resource import Device, DeviceAttribute
from drasim.cel import device as cel_device
from drasim.cel.device import DeviceInput
from hypothesis_budget import examples

VERSIONS = st.sampled_from(["1.0.0", "13.0.0", "580.95.5", "bad", "1.2", "01.0.0", "1.0.0-rc.1+b"])
SMALL = st.integers(-2, 2)


def _maybe(values: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.one_of(st.none(), values)


ATTRIBUTES = st.builds(
    DeviceAttribute,
    int_=_maybe(SMALL), bool_=_maybe(st.booleans()), string=_maybe(st.sampled_from(["", "gpu", "1"])),
    version=_maybe(VERSIONS), ints=_maybe(st.lists(SMALL, max_size=2)),
    bools=_maybe(st.lists(st.booleans(), max_size=2)),
    strings=_maybe(st.lists(st.sampled_from(["a", "1"]), max_size=2)),
    versions=_maybe(st.lists(VERSIONS, max_size=2)),
)
# Mostly well-formed attributes (one value set), as a fleet publishes them, with the odd malformed one.
ONE_VALUE = st.one_of(
    st.builds(lambda v: DeviceAttribute(string=v), st.sampled_from(["gpu", "H100"])),
    st.builds(lambda v: DeviceAttribute(version=v), VERSIONS),
    st.builds(lambda v: DeviceAttribute(int_=v), SMALL),
    st.builds(lambda v: DeviceAttribute(ints=v), st.lists(SMALL, max_size=2)),
    st.builds(lambda v: DeviceAttribute(versions=v), st.lists(VERSIONS, max_size=2)),
)
ATTRS = st.dictionaries(st.sampled_from(["a", "b", "c", "x.io/d", "e"]), st.one_of(ONE_VALUE, ATTRIBUTES), max_size=5)


def _message(result: object) -> object:
    return result if result is True or result is None else result.message  # type: ignore[attr-defined]


@settings(max_examples=examples(400))
@given(ATTRS, st.booleans(), st.booleans())
def test_fast_conversion_check_equals_the_plain_one(attrs: dict[str, DeviceAttribute], lists: bool,
                                                   warm: bool) -> None:
    if not warm:  # the fast path knows only versions parsed before: both states must agree with the plain check
        cel_device._SEMVER_CACHE.clear()
        cel_device._VALID_VERSIONS.clear()
    plain = cel_device._check(attrs, lists)
    if cel_device._converts(attrs, lists):
        assert plain is None
    got = DeviceInput("x.io", Device(name="d", attributes=attrs)).check(lists)
    assert _message(got) == _message(plain or True)


@settings(max_examples=examples(400))
@given(ATTRIBUTES, ATTRIBUTES)
def test_equal_attribute_tokens_mean_equal_attributes(a: DeviceAttribute, b: DeviceAttribute) -> None:
    same_token = cel_device._attribute_token(a) == cel_device._attribute_token(b)
    # msgspec compares field by field, and bool fields never meet int fields: 1 and True stay apart.
    same = all(type(x) is type(y) and x == y for x, y in zip(_fields(a), _fields(b), strict=True))
    assert same_token == same


def _fields(a: DeviceAttribute) -> list[object]:
    return [a.int_, a.bool_, a.string, a.version, a.ints, a.bools, a.strings,
            None if a.versions is None else tuple(a.versions)]
