"""The checked CEL AST (cel.expr.CheckedExpr) as small Python objects, decoded from cel-cpp's bytes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from drasim.cel import wire
from drasim.cel.values import UInt

# --- types ---------------------------------------------------------------------------------------

_PRIMITIVES = {1: "bool", 2: "int", 3: "uint", 4: "double", 5: "string", 6: "bytes"}
_WELL_KNOWN = {1: "google.protobuf.Any", 2: "google.protobuf.Timestamp", 3: "google.protobuf.Duration"}


@dataclass(frozen=True, slots=True)
class CelType:
    """A checker type. `kind` is one of: dyn, null_type, primitive names (bool, int, uint, double,
    string, bytes), wrapper, any, timestamp, duration, list, map, function, message, type_param,
    type, error, abstract. `name` carries the message/abstract/type-param name."""

    kind: str
    params: tuple[CelType, ...] = ()
    name: str = ""

    def __str__(self) -> str:
        """The type the way cel-go prints it (`list(string)`, `map(string, int)`, `kubernetes.Quantity`)."""
        k = self.kind
        if k == "list":
            return f"list({self.params[0]})"
        if k == "map":
            return f"map({self.params[0]}, {self.params[1]})"
        if k == "wrapper":
            return f"wrapper({self.params[0]})"
        if k == "type":
            return f"type({self.params[0]})" if self.params else "type"
        if k == "any":
            return "google.protobuf.Any"
        if k == "timestamp":
            return "google.protobuf.Timestamp"
        if k == "duration":
            return "google.protobuf.Duration"
        if k == "error":
            return "*error*"
        if k in ("message", "type_param"):
            return self.name
        if k == "abstract":
            if self.params:
                return f"{self.name}({', '.join(str(p) for p in self.params)})"
            return self.name
        return k

    @property
    def is_dyn(self) -> bool:
        return self.kind == "dyn"


DYN = CelType("dyn")
ERROR_TYPE = CelType("error")


def decode_type(buf: bytes) -> CelType:
    """Decode a cel.expr.Type message."""
    m = wire.parse(buf)
    if 1 in m:
        return DYN
    if 2 in m:
        return CelType("null_type")
    if 3 in m:
        return CelType(_PRIMITIVES.get(wire.first_int(m, 3), "dyn"))
    if 4 in m:
        return CelType("wrapper", (CelType(_PRIMITIVES.get(wire.first_int(m, 4), "dyn")),))
    if 5 in m:
        wk = wire.first_int(m, 5)
        return CelType({1: "any", 2: "timestamp", 3: "duration"}.get(wk, "dyn"))
    if 6 in m:
        lt = wire.parse(wire.first_bytes(m, 6) or b"")
        elem = lt.get(1)
        return CelType("list", (decode_type(wire.first_bytes(lt, 1) or b"") if elem else DYN,))
    if 7 in m:
        mt = wire.parse(wire.first_bytes(m, 7) or b"")
        k = decode_type(wire.first_bytes(mt, 1) or b"") if 1 in mt else DYN
        v = decode_type(wire.first_bytes(mt, 2) or b"") if 2 in mt else DYN
        return CelType("map", (k, v))
    if 8 in m:
        return CelType("function")
    if 9 in m:
        return CelType("message", name=(wire.first_bytes(m, 9) or b"").decode())
    if 10 in m:
        return CelType("type_param", name=(wire.first_bytes(m, 10) or b"").decode())
    if 11 in m:
        inner = wire.first_bytes(m, 11) or b""
        return CelType("type", (decode_type(inner),) if inner else ())
    if 12 in m:
        return ERROR_TYPE
    if 14 in m:
        at = wire.parse(wire.first_bytes(m, 14) or b"")
        name = (wire.first_bytes(at, 1) or b"").decode()
        params = tuple(decode_type(p) for p in wire.all_bytes(at, 2))
        return CelType("abstract", params, name)
    return DYN


# --- expressions ---------------------------------------------------------------------------------

class Expr:
    """Base of all expression nodes."""

    __slots__ = ("id",)
    id: int

    def children(self) -> Iterator[Expr]:
        return iter(())


class Const(Expr):
    __slots__ = ("value",)

    def __init__(self, id: int, value: object) -> None:
        self.id = id
        self.value = value


class Ident(Expr):
    __slots__ = ("name",)

    def __init__(self, id: int, name: str) -> None:
        self.id = id
        self.name = name


class Select(Expr):
    __slots__ = ("field", "operand", "test_only")

    def __init__(self, id: int, operand: Expr, field: str, test_only: bool) -> None:
        self.id = id
        self.operand = operand
        self.field = field
        self.test_only = test_only

    def children(self) -> Iterator[Expr]:
        yield self.operand


class Call(Expr):
    __slots__ = ("args", "function", "target")

    def __init__(self, id: int, target: Expr | None, function: str, args: list[Expr]) -> None:
        self.id = id
        self.target = target
        self.function = function
        self.args = args

    def children(self) -> Iterator[Expr]:
        if self.target is not None:
            yield self.target
        yield from self.args


class CreateList(Expr):
    __slots__ = ("elements", "optional_indices")

    def __init__(self, id: int, elements: list[Expr], optional_indices: set[int]) -> None:
        self.id = id
        self.elements = elements
        self.optional_indices = optional_indices

    def children(self) -> Iterator[Expr]:
        yield from self.elements


@dataclass(slots=True)
class Entry:
    """A map entry (`key` set) or a message field initialiser (`field` set)."""

    id: int
    key: Expr | None
    field: str
    value: Expr
    optional: bool


class CreateStruct(Expr):
    """A map literal (empty `message_name`) or a message literal."""

    __slots__ = ("entries", "message_name")

    def __init__(self, id: int, message_name: str, entries: list[Entry]) -> None:
        self.id = id
        self.message_name = message_name
        self.entries = entries

    def children(self) -> Iterator[Expr]:
        for e in self.entries:
            if e.key is not None:
                yield e.key
            yield e.value


class Comprehension(Expr):
    __slots__ = ("accu_init", "accu_var", "iter_range", "iter_var", "iter_var2", "loop_condition",
                 "loop_step", "result")

    def __init__(self, id: int, iter_var: str, iter_var2: str, iter_range: Expr, accu_var: str,
                 accu_init: Expr, loop_condition: Expr, loop_step: Expr, result: Expr) -> None:
        self.id = id
        self.iter_var = iter_var
        self.iter_var2 = iter_var2
        self.iter_range = iter_range
        self.accu_var = accu_var
        self.accu_init = accu_init
        self.loop_condition = loop_condition
        self.loop_step = loop_step
        self.result = result

    def children(self) -> Iterator[Expr]:
        yield self.iter_range
        yield self.accu_init
        yield self.loop_condition
        yield self.loop_step
        yield self.result


def walk(e: Expr) -> Iterator[Expr]:
    """All nodes of the tree, parents before children."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(n.children())))


@dataclass(frozen=True, slots=True)
class Reference:
    """What the checker resolved a node to: a (qualified) identifier or a set of overloads."""

    name: str
    overload_ids: tuple[str, ...]
    value: object = None


@dataclass(slots=True)
class CheckedAst:
    expr: Expr
    types: dict[int, CelType] = field(default_factory=dict)
    refs: dict[int, Reference] = field(default_factory=dict)
    positions: dict[int, int] = field(default_factory=dict)

    def type_of(self, e: Expr) -> CelType:
        return self.types.get(e.id, DYN)


def _decode_constant(buf: bytes) -> object:
    m = wire.parse(buf)
    if 1 in m:
        return None
    if 2 in m:
        return bool(wire.first_int(m, 2))
    if 3 in m:
        return wire.to_int64(wire.first_int(m, 3))
    if 4 in m:
        return UInt(wire.first_int(m, 4))
    if 5 in m:
        return wire.to_double(m[5][-1])
    if 6 in m:
        return (wire.first_bytes(m, 6) or b"").decode("utf-8", errors="surrogatepass")
    if 7 in m:
        return bytes(wire.first_bytes(m, 7) or b"")
    raise wire.WireError("unsupported constant kind")


def decode_expr(buf: bytes) -> Expr:
    """Decode a cel.expr.Expr message (recursively)."""
    m = wire.parse(buf)
    eid = wire.first_int(m, 2)
    if 3 in m:
        return Const(eid, _decode_constant(wire.first_bytes(m, 3) or b""))
    if 4 in m:
        im = wire.parse(wire.first_bytes(m, 4) or b"")
        return Ident(eid, (wire.first_bytes(im, 1) or b"").decode())
    if 5 in m:
        sm = wire.parse(wire.first_bytes(m, 5) or b"")
        operand = decode_expr(wire.first_bytes(sm, 1) or b"")
        return Select(eid, operand, (wire.first_bytes(sm, 2) or b"").decode(), bool(wire.first_int(sm, 3)))
    if 6 in m:
        cm = wire.parse(wire.first_bytes(m, 6) or b"")
        tb = wire.first_bytes(cm, 1)
        target = decode_expr(tb) if tb is not None else None
        fn = (wire.first_bytes(cm, 2) or b"").decode()
        args = [decode_expr(a) for a in wire.all_bytes(cm, 3)]
        return Call(eid, target, fn, args)
    if 7 in m:
        lm = wire.parse(wire.first_bytes(m, 7) or b"")
        elems = [decode_expr(a) for a in wire.all_bytes(lm, 1)]
        return CreateList(eid, elems, set(wire.packed_ints(lm, 2)))
    if 8 in m:
        sm = wire.parse(wire.first_bytes(m, 8) or b"")
        name = (wire.first_bytes(sm, 1) or b"").decode()
        entries = []
        for eb in wire.all_bytes(sm, 2):
            em = wire.parse(eb)
            kb = wire.first_bytes(em, 3)
            entries.append(Entry(
                id=wire.first_int(em, 1),
                key=decode_expr(kb) if kb is not None else None,
                field=(wire.first_bytes(em, 2) or b"").decode(),
                value=decode_expr(wire.first_bytes(em, 4) or b""),
                optional=bool(wire.first_int(em, 5)),
            ))
        return CreateStruct(eid, name, entries)
    if 9 in m:
        cm = wire.parse(wire.first_bytes(m, 9) or b"")

        def sub(f: int) -> Expr:
            return decode_expr(wire.first_bytes(cm, f) or b"")

        def text(f: int) -> str:
            return (wire.first_bytes(cm, f) or b"").decode()

        return Comprehension(eid, text(1), text(8), sub(2), text(3), sub(4), sub(5), sub(6), sub(7))
    # An expression with no kind set: cel-cpp never produces one for a checked AST.
    raise wire.WireError(f"expression {eid} has no kind")


def decode_checked(serialized: bytes) -> CheckedAst:
    """Decode `Expression.serialize()`: a google.protobuf.Any holding a cel.expr.CheckedExpr."""
    outer = wire.parse(serialized)
    type_url = (wire.first_bytes(outer, 1) or b"").decode()
    if not type_url.endswith("cel.expr.CheckedExpr"):
        raise wire.WireError(f"unexpected payload {type_url!r}")
    m = wire.parse(wire.first_bytes(outer, 2) or b"")
    refs: dict[int, Reference] = {}
    for entry in wire.all_bytes(m, 2):
        em = wire.parse(entry)
        key = wire.to_int64(wire.first_int(em, 1))
        rm = wire.parse(wire.first_bytes(em, 2) or b"")
        vb = wire.first_bytes(rm, 4)
        refs[key] = Reference(
            name=(wire.first_bytes(rm, 1) or b"").decode(),
            overload_ids=tuple(b.decode() for b in wire.all_bytes(rm, 3)),
            value=_decode_constant(vb) if vb is not None else None,
        )
    types: dict[int, CelType] = {}
    for entry in wire.all_bytes(m, 3):
        em = wire.parse(entry)
        types[wire.to_int64(wire.first_int(em, 1))] = decode_type(wire.first_bytes(em, 2) or b"")
    positions: dict[int, int] = {}
    sib = wire.first_bytes(m, 5)
    if sib is not None:
        sm = wire.parse(sib)
        for entry in wire.all_bytes(sm, 4):
            em = wire.parse(entry)
            positions[wire.to_int64(wire.first_int(em, 1))] = wire.to_int64(wire.first_int(em, 2))
    expr = decode_expr(wire.first_bytes(m, 4) or b"")
    return CheckedAst(expr=expr, types=types, refs=refs, positions=positions)


def decode_parsed(serialized: bytes) -> tuple[Expr, dict[int, int]]:
    """Decode a parse-only result (google.protobuf.Any holding cel.expr.ParsedExpr): the tree and
    the source offset of every node."""
    outer = wire.parse(serialized)
    m = wire.parse(wire.first_bytes(outer, 2) or b"")
    positions: dict[int, int] = {}
    sib = wire.first_bytes(m, 3)
    if sib is not None:
        sm = wire.parse(sib)
        for entry in wire.all_bytes(sm, 4):
            em = wire.parse(entry)
            positions[wire.to_int64(wire.first_int(em, 1))] = wire.to_int64(wire.first_int(em, 2))
    return decode_expr(wire.first_bytes(m, 2) or b""), positions
