"""Kubernetes `Quantity` library: quantity(), isQuantity(), arithmetic, conversions, sign()."""

from __future__ import annotations

from typing import Any

from drasim.api.quantity import Quantity
from drasim.cel.library import Function, glob, member
from drasim.cel.library.standard import no_overload
from drasim.cel.values import QUANTITY_TYPE, EvalError
from drasim.errors import QuantityError

Q = QUANTITY_TYPE


def parse_quantity(s: Any) -> Quantity:
    if type(s) is not str:
        raise no_overload()
    try:
        return Quantity.parse(s)
    except QuantityError as e:
        raise EvalError(str(e)) from None


def is_quantity(s: Any) -> bool:
    if type(s) is not str:
        raise no_overload()
    try:
        Quantity.parse(s)
    except QuantityError:
        return False
    return True


def _q(v: Any) -> Quantity:
    if type(v) is not Quantity:
        raise no_overload()
    return v


def sign(q: Any) -> int:
    return int(_q(q).sign())


def as_integer(q: Any) -> int:
    try:
        return int(_q(q).as_integer())
    except QuantityError as e:
        raise EvalError(str(e)) from None


def is_integer(q: Any) -> bool:
    return bool(_q(q).is_integer())


def as_approximate_float(q: Any) -> float:
    return float(_q(q).as_approximate_float())


def _operand(v: Any) -> Quantity | int:
    if type(v) is Quantity or type(v) is int:
        return v
    raise no_overload()


def q_add(a: Any, b: Any) -> Quantity:
    """`q.add(x)`: an int operand is NewQuantity(x, DecimalExponent), as upstream."""
    return _q(a).add(_operand(b))


def q_sub(a: Any, b: Any) -> Quantity:
    return _q(a).sub(_operand(b))


FUNCTIONS: list[Function] = [
    Function("quantity", (glob("string_to_quantity", ("string",), Q),), parse_quantity),
    Function("isQuantity", (glob("is_quantity_string", ("string",), "bool"),), is_quantity),
    # Declared as a global function upstream: `sign(q)`; `q.sign()` does not compile.
    Function("sign", (glob("quantity_sign", (Q,), "int"),), sign),
    Function("asApproximateFloat", (member("quantity_get_float", (Q,), "double"),), as_approximate_float),
    Function("asInteger", (member("quantity_get_int", (Q,), "int"),), as_integer),
    Function("isInteger", (member("quantity_is_integer", (Q,), "bool"),), is_integer),
    Function("add", (member("quantity_add", (Q, Q), Q), member("quantity_add_int", (Q, "int"), Q)), q_add),
    Function("sub", (member("quantity_sub", (Q, Q), Q), member("quantity_sub_int", (Q, "int"), Q)), q_sub),
]
