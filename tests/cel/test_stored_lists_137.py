"""1.37's stored environment (list attributes read whatever DRAListTypeAttributes says) against 1.36's."""

from __future__ import annotations

from cel_helpers import attr, device
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.resource import Device
from drasim.cel import CelCompileError, CelRuntimeError, compile_selector, device_input, stored_environment
from hypothesis_budget import examples

D = "device.attributes['dra.example.com']"
ATOMS = [
    f"{D}.n > 2", f"{D}.s == 'fish'", f"{D}.b", f"{D}.missing == 1", f"{D}.l.includes(2)",
    f"{D}.l.exists(x, x == 2)", f"{D}.l.size() > 1", f"{D}.v.isGreaterThan(semver('1.0.0'))",
    f"{D}.?x.orValue(false)", f"has({D}.l)", "device.driver == 'dra.example.com'",
]
EXPRESSIONS = st.recursive(st.sampled_from(ATOMS), lambda sub: st.one_of(
    st.builds(lambda a, b: f"({a} && {b})", sub, sub), st.builds(lambda a, b: f"({a} || {b})", sub, sub),
    st.builds(lambda a: f"!({a})", sub)), max_leaves=4)
# `l` is a list of ints, a scalar int, or absent: the scalar-only devices are those without a list.
L_VALUES = st.one_of(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.integers(0, 3), st.none())


def _device(n: int, s: str, b: bool, ls: list[int] | int | None, v: str) -> Device:
    attrs = {"n": n, "s": s, "b": b, "v": attr(version=v)}
    if ls is not None:
        attrs["l"] = ls
    return device(attrs)


DEVICES = st.builds(_device, st.integers(-3, 5), st.sampled_from(["fish", "bird", ""]), st.booleans(), L_VALUES,
                    st.sampled_from(["0.9.0", "1.0.0", "2.1.3"]))


def _verdict(expression: str, dev: Device, release: str, gate: bool) -> bool | str | None:
    """True/False, the runtime error's text, or None when the expression does not compile there."""
    try:
        program = compile_selector(expression, stored_environment(release, gate))
    except CelCompileError:
        return None
    outcome = program.evaluate(device_input("dra.example.com", dev))
    return outcome.message if isinstance(outcome, CelRuntimeError) else outcome


@settings(max_examples=examples(300))
@given(EXPRESSIONS, DEVICES, st.booleans())
def test_137_changes_only_devices_with_list_attributes(expression: str, dev: Device, gate: bool) -> None:
    """Where 1.36 compiles the selector and the device has no list attribute, 1.37 answers as 1.36 did;
    with a list attribute and the gate off, 1.36 always fails on it and 1.37 answers as with the gate on."""
    old, new = _verdict(expression, dev, "1.36", gate), _verdict(expression, dev, "1.37", gate)
    assert new is not None  # 1.37's stored environment compiles all that 1.36's gate-on one does
    assert new == _verdict(expression, dev, "1.37", not gate) == _verdict(expression, dev, "1.36", True)
    listed = dev.attributes.get("l")
    has_list = listed is not None and listed.ints is not None
    if old is None:
        return
    if has_list and not gate:
        assert old == "attribute l: unsupported attribute value"
    else:
        assert old == new
