"""Property tests: evaluation is deterministic and `&&`/`||` commute when neither side errors."""

from __future__ import annotations

from cel_helpers import LISTS, device
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.cel import CelCompileError, CelRuntimeError, compile_selector, device_input
from hypothesis_budget import examples

D = "device.attributes['dra.example.com']"

ATOMS = [
    f"{D}.n > 2", f"{D}.n == 1", f"{D}.s == 'fish'", f"{D}.s.startsWith('f')", f"{D}.b",
    f"{D}.missing == 1", f"'s' in {D}", f"{D}.l.exists(x, x == 2)", f"{D}.v.isGreaterThan(semver('1.0.0'))",
    "device.capacity['dra.example.com'].mem.isGreaterThan(quantity('1Gi'))",
    "device.driver == 'dra.example.com'",
    "true", "false", "1 / 0 == 1", f"{D}.l.size() > 1", f"{D}.s.matches('^f.*h$')", f"{D}.?x.orValue(false)",
]


def _expr(depth: int) -> st.SearchStrategy[str]:
    atom = st.sampled_from(ATOMS)
    if depth == 0:
        return atom
    sub = _expr(depth - 1)
    return st.one_of(
        atom,
        st.builds(lambda a, b: f"({a} && {b})", sub, sub),
        st.builds(lambda a, b: f"({a} || {b})", sub, sub),
        st.builds(lambda a: f"!({a})", sub),
        st.builds(lambda a, b, c: f"({a} ? {b} : {c})", sub, sub, sub),
    )


def _device(n: int, s: str, b: bool, ls: list[int], v: str, mem: str) -> object:
    from cel_helpers import attr
    return device({"n": n, "s": s, "b": b, "l": ls, "v": attr(version=v)}, {"mem": mem})


DEVICES = st.builds(
    _device,
    st.integers(-3, 5), st.sampled_from(["fish", "bird", "", "fresh"]), st.booleans(),
    st.lists(st.integers(0, 3), min_size=1, max_size=4), st.sampled_from(["0.9.0", "1.0.0", "2.1.3"]),
    st.sampled_from(["512Mi", "1Gi", "2Gi"]),
)


def _eval(expr: str, dev: object) -> bool | CelRuntimeError:
    return compile_selector(expr, LISTS).evaluate(device_input("dra.example.com", dev))  # type: ignore[arg-type]


@settings(max_examples=examples(300))
@given(_expr(3), DEVICES)
def test_evaluation_is_deterministic(expr: str, dev: object) -> None:
    try:
        first = _eval(expr, dev)
    except CelCompileError:
        return
    assert _eval(expr, dev) == first
    di = device_input("dra.example.com", dev)  # type: ignore[arg-type]
    assert compile_selector(expr, LISTS).evaluate(di) == first
    assert compile_selector(expr, LISTS).evaluate(di) == first


@settings(max_examples=examples(300))
@given(_expr(2), _expr(2), DEVICES)
def test_and_or_commute_without_errors(a: str, b: str, dev: object) -> None:
    ra, rb = _eval(a, dev), _eval(b, dev)
    if isinstance(ra, CelRuntimeError) or isinstance(rb, CelRuntimeError):
        # Errors are absorbed by the other side's short-circuit value, in either order.
        for op, absorbing in (("&&", False), ("||", True)):
            if ra is absorbing or rb is absorbing:
                assert _eval(f"({a}) {op} ({b})", dev) is absorbing
                assert _eval(f"({b}) {op} ({a})", dev) is absorbing
        return
    assert _eval(f"({a}) && ({b})", dev) == _eval(f"({b}) && ({a})", dev) == (ra and rb)
    assert _eval(f"({a}) || ({b})", dev) == _eval(f"({b}) || ({a})", dev) == (ra or rb)
