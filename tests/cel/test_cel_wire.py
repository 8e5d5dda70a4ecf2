"""The protobuf reader and the CheckedExpr decoding of cel-cpp output."""

from __future__ import annotations

import pytest

from drasim.cel import wire
from drasim.cel.ast import Call, Comprehension, Const, Ident, Select, decode_checked, walk
from drasim.cel.env import DEFAULT_ENV, cel_env
from drasim.cel.values import UInt


def test_varints_and_lengths() -> None:
    msg = wire.parse(b"\x08\x96\x01\x12\x03abc\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")
    assert wire.first_int(msg, 1) == 150
    assert wire.first_bytes(msg, 2) == b"abc"
    assert wire.to_int64(wire.first_int(msg, 3)) == -1


def test_packed_and_fixed64() -> None:
    msg = wire.parse(b"\x12\x03\x01\x02\x03" + b"\x29" + b"\x00\x00\x00\x00\x00\x00\xf8\x3f")
    assert wire.packed_ints(msg, 2) == [1, 2, 3]
    assert wire.to_double(msg[5][0]) == 1.5


def test_truncated_input_is_rejected() -> None:
    with pytest.raises(wire.WireError):
        wire.parse(b"\x12\x05ab")
    with pytest.raises(wire.WireError):
        wire.parse(b"\x08")


def _checked(expr: str):  # type: ignore[no-untyped-def]
    return decode_checked(cel_env(DEFAULT_ENV).compile(expr).serialize())


def test_constants_decode() -> None:
    ast = _checked("[1, -2, 3u, 1.5, 'x', b'y', true, null] == []")
    consts = [n.value for n in walk(ast.expr) if isinstance(n, Const)]
    assert consts == [1, -2, UInt(3), 1.5, "x", b"y", True, None]
    assert type(consts[2]) is UInt


def test_qualified_identifiers_and_references() -> None:
    ast = _checked("device.driver == 'x' && device.attributes['d'].a")
    idents = {n.name for n in walk(ast.expr) if isinstance(n, Ident)}
    assert idents == {"device.driver", "device.attributes"}
    selects = [n for n in walk(ast.expr) if isinstance(n, Select)]
    assert [s.field for s in selects] == ["a"]
    calls = {n.function: ast.refs[n.id].overload_ids for n in walk(ast.expr) if isinstance(n, Call)}
    assert calls["_&&_"] == ("logical_and",)
    assert str(ast.types[ast.expr.id]) == "bool"


def test_macros_arrive_as_comprehensions() -> None:
    ast = _checked("[1, 2].exists(x, x > 1)")
    comp = [n for n in walk(ast.expr) if isinstance(n, Comprehension)]
    assert len(comp) == 1 and comp[0].iter_var == "x"
    assert ast.positions[ast.expr.id] >= 0
