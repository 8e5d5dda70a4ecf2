"""What a compiled selector reads of its device: the entries its result can depend on, when that is known."""

# A selector that reaches the device only through single entries with constant names
# (`device.attributes["dom"].name`, `has(...)`, `["name"]`, `.?name`), plus `device.driver` and
# `device.allowMultipleAllocations`, gives the same answer on every device whose driver, flag, conversion
# check (DeviceInput.check) and those entries are equal: that is all its closures can see (the compiler's
# `_device_entry` fast path reads exactly these). Anything else (a whole map or domain, the opaque
# `device`, comprehensions with their own scopes) makes the reads unknown: None, and callers evaluate.

from __future__ import annotations

from drasim.cel.ast import Call, CheckedAst, Comprehension, Const, Expr, Ident, Select
from drasim.cel.evaluate import DEVICE_MAPS, device_domain, resolved_name

# (map kind "attributes"/"capacity", domain, name, "domain/name")
Read = tuple[str, str, str, str]

_DEVICE_NAMES = frozenset({"device", *DEVICE_MAPS})
_ENTRY_CALLS = frozenset({"_[_]", "_?._"})


def device_reads(ast: CheckedAst) -> tuple[Read, ...] | None:
    """The entries the program reads, sorted; None when it may read more of the device than entries."""
    reads: set[Read] = set()

    stack: list[Expr] = [ast.expr]
    while stack:
        e = stack.pop()
        if type(e) is Comprehension:
            return None
        if type(e) is Ident:
            if resolved_name(ast, e) in _DEVICE_NAMES:
                return None  # a whole map, or the opaque device
            continue
        entry: tuple[Expr, str] | None = None
        if type(e) is Select:
            entry = (e.operand, e.field)
        elif type(e) is Call and e.function in _ENTRY_CALLS and e.target is None and len(e.args) == 2 \
                and type(e.args[1]) is Const and type(e.args[1].value) is str:
            entry = (e.args[0], e.args[1].value)
        if entry is not None:
            # No comprehension reaches here (None above), so no variable shadows the device's names.
            dd = device_domain(ast, entry[0])
            if dd is not None:
                reads.add((dd[0], dd[1], entry[1], dd[1] + "/" + entry[1]))
                continue  # the domain's map is read only through this entry
        stack.extend(e.children())
    return tuple(sorted(reads))
