"""DRA additions: `<x>.includes(<y>)` (DRAListTypeAttributes) for scalar and list attributes."""

from __future__ import annotations

from typing import Any

from drasim.cel.library import Function, member
from drasim.cel.values import EvalError, cel_equal

# resourceapi.ResourceSliceMaxAttributeValuesPerDevice
MAX_INCLUDES_VALUES = 48


def includes(target: Any, arg: Any) -> bool:
    if isinstance(target, (list, tuple)):
        for i, item in enumerate(target):
            if i >= MAX_INCLUDES_VALUES:
                raise EvalError(f"'includes' function cannot be applied to lists longer than "
                                f"{MAX_INCLUDES_VALUES} values")
            if cel_equal(item, arg):
                return True
        return False
    return cel_equal(target, arg)


INCLUDES = Function("includes", (member("dra_includes_dyn_dyn", ("dyn", "dyn"), "bool"),), includes)
