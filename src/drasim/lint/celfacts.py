"""Static facts of a device selector read from its checked CEL AST: names looked up, driver guards, literals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from drasim.cel.ast import Call, CheckedAst, Comprehension, Const, CreateList, Expr, Ident, Select, decode_checked
from drasim.cel.env import DEFAULT_ENV, CelEnvironment, cel_env

__all__ = ["Comparison", "Lookup", "SelectorFacts", "selector_facts"]

# (map kind, domain, name): kind is "attributes" or "capacity".
NameKey = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Lookup:
    """One `device.attributes["dom"].name` (or capacity) in an expression.

    `guarded`: a missing name cannot raise here — the lookup is itself a test (`has()`, `in`, `.?`) or
    sits beside such a test of the same name under `&&`/`||`/`?:`. `drivers`: the `device.driver`
    values the expression requires wherever this lookup is evaluated (None: any driver)."""

    kind: str
    domain: str
    name: str
    guarded: bool
    drivers: frozenset[str] | None


@dataclass(frozen=True, slots=True)
class Comparison:
    """A device entry compared with a constant: `device.capacity["dom"].memory.isGreaterThan(quantity("80Gi"))`
    is (capacity, dom, memory, ">", "80Gi"). `op` reads with the device entry on its left."""

    kind: str
    domain: str
    name: str
    op: str
    value: str
    wrap: str = ""  # "quantity" or "semver" when the constant is one: the comparison goes through compareTo

    def expression(self) -> str:
        """The comparison alone, as a selector (to tell which part of a selector no device passes)."""
        entry = f'device.{self.kind}["{self.domain}"].{self.name}'
        if self.wrap:
            return f'{entry}.compareTo({self.wrap}("{self.value}")) {self.op} 0'
        return f"{entry} {self.op} {self.value}"


@dataclass(frozen=True, slots=True)
class SelectorFacts:
    """What lint needs from one selector expression."""

    lookups: tuple[Lookup, ...]
    drivers: frozenset[str] | None  # what the whole expression requires of device.driver
    # String literals compared with one attribute: (domain, name) -> literals.
    literals: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    comparisons: tuple[Comparison, ...] = ()


@dataclass(frozen=True, slots=True)
class _Ctx:
    drivers: frozenset[str] | None = None
    guards: frozenset[NameKey] = frozenset()
    scope: tuple[tuple[str, tuple[str, str]], ...] = ()  # bound variable -> (kind, domain)

    def var(self, name: str) -> tuple[str, str] | None:
        for var, dom in reversed(self.scope):
            if var == name:
                return dom
        return None

    def narrowed(self, drivers: frozenset[str] | None, guards: Iterable[NameKey]) -> _Ctx:
        return _Ctx(_meet(self.drivers, drivers), self.guards | frozenset(guards), self.scope)


def _meet(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None:
        return b
    return a if b is None else a & b


class _Walker:
    def __init__(self, ast: CheckedAst) -> None:
        self.ast = ast
        self.lookups: list[Lookup] = []
        self.literals: dict[tuple[str, str], list[str]] = {}
        self.comparisons: list[Comparison] = []

    # --- recognising device lookups -------------------------------------------------------

    def _resolved(self, e: Expr) -> str | None:
        if type(e) is not Ident:
            return None
        ref = self.ast.refs.get(e.id)
        return ref.name if ref is not None and ref.name else e.name

    def _domain(self, e: Expr, ctx: _Ctx) -> tuple[str, str] | None:
        """(kind, domain) for `device.attributes["dom"]`, `device.capacity["dom"]` or a variable bound to one."""
        if type(e) is Ident:
            bound = ctx.var(e.name)
            if bound is not None:
                return bound
        if type(e) is Call and e.function == "_[_]" and e.target is None and len(e.args) == 2:
            container, key = e.args
            if type(container) is Ident and ctx.var(container.name) is None:
                name = self._resolved(container)
                kind = {"device.attributes": "attributes", "device.capacity": "capacity"}.get(name or "")
                if kind is not None and type(key) is Const and type(key.value) is str:
                    return kind, key.value
        return None

    def lookup(self, e: Expr, ctx: _Ctx) -> tuple[NameKey, str] | None:
        """(name key, mode) when `e` reads one device entry; mode is `get`, `test` or `optional`."""
        if type(e) is Select:
            dom = self._domain(e.operand, ctx)
            if dom is not None:
                return (dom[0], dom[1], e.field), "test" if e.test_only else "get"
        elif type(e) is Call and e.target is None and len(e.args) == 2:
            a, b = e.args
            if e.function in ("_[_]", "_?._", "_[?_]"):
                dom = self._domain(a, ctx)
                if dom is not None and type(b) is Const and type(b.value) is str:
                    return (dom[0], dom[1], b.value), "get" if e.function == "_[_]" else "optional"
            elif e.function == "@in" and type(a) is Const and type(a.value) is str:
                dom = self._domain(b, ctx)
                if dom is not None:
                    return (dom[0], dom[1], a.value), "test"
        return None

    # --- guards -------------------------------------------------------------------------------

    def driver_constraint(self, e: Expr) -> frozenset[str] | None:
        """The device.driver values `e` being true implies (None: no constraint known)."""
        if type(e) is not Call or e.target is not None:
            return None
        if e.function == "_==_" and len(e.args) == 2:
            for a, b in (e.args, e.args[::-1]):
                if self._resolved(a) == "device.driver" and type(b) is Const and type(b.value) is str:
                    return frozenset({b.value})
        if e.function == "@in" and len(e.args) == 2:
            a, b = e.args
            if self._resolved(a) == "device.driver" and type(b) is CreateList and all(
                type(x) is Const and type(x.value) is str for x in b.elements
            ):
                return frozenset(str(x.value) for x in b.elements if type(x) is Const)
        if e.function == "_&&_":
            out: frozenset[str] | None = None
            for a in e.args:
                out = _meet(out, self.driver_constraint(a))
            return out
        if e.function == "_||_":
            parts = [self.driver_constraint(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            return frozenset().union(*(p for p in parts if p is not None))
        return None

    def tests(self, e: Expr, ctx: _Ctx, negated: bool = False) -> set[NameKey]:
        """Names `e` being true (or false, when `negated`) proves present."""
        if type(e) is Call and e.target is None:
            if e.function == "!_" and len(e.args) == 1:
                return self.tests(e.args[0], ctx, not negated)
            if e.function == ("_||_" if negated else "_&&_"):
                return set().union(*(self.tests(a, ctx, negated) for a in e.args))
        if not negated:
            found = self.lookup(e, ctx)
            if found is not None and found[1] == "test":
                return {found[0]}
        return set()

    # --- the walk -----------------------------------------------------------------------------

    def visit(self, e: Expr, ctx: _Ctx) -> None:
        found = self.lookup(e, ctx)
        if found is not None:
            key, mode = found
            self.lookups.append(Lookup(*key, guarded=mode != "get" or key in ctx.guards, drivers=ctx.drivers))
            return
        if type(e) is Call and e.target is None:
            fn = e.function
            if fn in ("_&&_", "_||_"):
                terms = _flatten(e, fn)
                for i, term in enumerate(terms):
                    others = terms[:i] + terms[i + 1:]
                    if fn == "_&&_":
                        # CEL's && absorbs an error when any other term is false, so every other term
                        # constrains this one, not just those to its left.
                        drivers: frozenset[str] | None = None
                        guards: set[NameKey] = set()
                        for o in others:
                            drivers = _meet(drivers, self.driver_constraint(o))
                            guards |= self.tests(o, ctx)
                        self.visit(term, ctx.narrowed(drivers, guards))
                    else:
                        guards = set().union(*(self.tests(o, ctx, negated=True) for o in others))
                        self.visit(term, ctx.narrowed(None, guards))
                return
            if fn == "_?_:_" and len(e.args) == 3:
                cond, then, other = e.args
                self.visit(cond, ctx)
                self.visit(then, ctx.narrowed(self.driver_constraint(cond), self.tests(cond, ctx)))
                self.visit(other, ctx.narrowed(None, self.tests(cond, ctx, negated=True)))
                return
        self._literals(e, ctx)
        self._compared(e, ctx)
        if type(e) is Comprehension:
            self._comprehension(e, ctx)
            return
        for child in e.children():
            self.visit(child, ctx)

    def _comprehension(self, e: Comprehension, ctx: _Ctx) -> None:
        shadowed = {e.iter_var, e.iter_var2, e.accu_var}
        inner = _Ctx(ctx.drivers, ctx.guards, tuple((v, d) for v, d in ctx.scope if v not in shadowed))
        self.visit(e.iter_range, ctx)
        dom = self._domain(e.accu_init, ctx)
        # cel.bind(v, device.attributes["dom"], body) expands to a loop over [] with v as accumulator.
        if dom is not None and type(e.iter_range) is CreateList and not e.iter_range.elements:
            bound = _Ctx(inner.drivers, inner.guards, (*inner.scope, (e.accu_var, dom)))
            self.visit(e.result, bound)
            return
        self.visit(e.accu_init, ctx)
        for part in (e.loop_condition, e.loop_step, e.result):
            self.visit(part, inner)

    def _literals(self, e: Expr, ctx: _Ctx) -> None:
        """Record string literals an attribute is compared with (`==`, `!=`, `in [...]`, `.includes`)."""
        if type(e) is not Call:
            return
        pairs: list[tuple[Expr, list[Expr]]] = []
        if e.target is None and e.function in ("_==_", "_!=_") and len(e.args) == 2:
            a, b = e.args
            pairs = [(a, [b]), (b, [a])]
        elif e.target is None and e.function == "@in" and len(e.args) == 2 and type(e.args[1]) is CreateList:
            pairs = [(e.args[0], list(e.args[1].elements))]
        elif e.target is not None and e.function == "includes" and len(e.args) == 1:
            pairs = [(e.target, [e.args[0]])]
        for subject, values in pairs:
            found = self.lookup(subject, ctx)
            if found is None or found[0][0] != "attributes":
                continue
            strings = [v.value for v in values if type(v) is Const and type(v.value) is str]
            if strings:
                self.literals.setdefault((found[0][1], found[0][2]), []).extend(strings)


    def _compared(self, e: Expr, ctx: _Ctx) -> None:
        """Record a device entry compared with a constant (operators, isGreaterThan/isLessThan, compareTo)."""
        if type(e) is not Call:
            return
        if e.target is not None and e.function in _METHOD_OPS and len(e.args) == 1:
            self._add_comparison(e.target, _METHOD_OPS[e.function], e.args[0], ctx)
            return
        if e.target is not None or e.function not in _OPS or len(e.args) != 2:
            return
        a, b = e.args
        op = _OPS[e.function]
        for subject, other, flip in ((a, b, False), (b, a, True)):
            # `x.compareTo(y) >= 0` reads as `x >= y`.
            if (type(subject) is Call and subject.target is not None and subject.function == "compareTo"
                    and len(subject.args) == 1 and type(other) is Const and other.value == 0):
                self._add_comparison(subject.target, _FLIPPED[op] if flip else op, subject.args[0], ctx)
                return
            if self._add_comparison(subject, _FLIPPED[op] if flip else op, other, ctx):
                return

    def _add_comparison(self, subject: Expr, op: str, other: Expr, ctx: _Ctx) -> bool:
        found = self.lookup(subject, ctx)
        text = _constant_text(other)
        if found is None or found[1] != "get" or text is None:
            return False
        kind, domain, name = found[0]
        wrap = other.function if type(other) is Call else ""
        self.comparisons.append(Comparison(kind, domain, name, op, text, wrap))
        return True


_OPS = {"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}
_FLIPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_METHOD_OPS = {"isGreaterThan": ">", "isLessThan": "<"}


def _constant_text(e: Expr) -> str | None:
    """A constant as written: `"Flex"`, `3`, or the argument of `quantity("80Gi")` / `semver("1.2.3")`."""
    if type(e) is Const and type(e.value) in (str, int, bool, float):
        if type(e.value) is str:
            return f'"{e.value}"'
        return str(e.value).lower() if type(e.value) is bool else str(e.value)
    if (type(e) is Call and e.target is None and e.function in ("quantity", "semver") and len(e.args) == 1
            and type(e.args[0]) is Const and type(e.args[0].value) is str):
        return str(e.args[0].value)
    return None


def _flatten(e: Expr, fn: str) -> list[Expr]:
    if type(e) is Call and e.function == fn and e.target is None:
        return [t for a in e.args for t in _flatten(a, fn)]
    return [e]


@cache
def _checked(expression: str, env: CelEnvironment) -> CheckedAst | None:
    try:
        return decode_checked(cel_env(env).compile(expression).serialize())
    except Exception:  # compile errors are api-validation's to report
        return None


@cache
def selector_facts(expression: str, env: CelEnvironment = DEFAULT_ENV) -> SelectorFacts | None:
    """The facts of one selector, or None when it does not compile."""
    ast = _checked(expression, env)
    if ast is None:
        return None
    w = _Walker(ast)
    w.visit(ast.expr, _Ctx())
    return SelectorFacts(
        tuple(w.lookups),
        w.driver_constraint(ast.expr),
        {k: tuple(v) for k, v in w.literals.items()},
        tuple(dict.fromkeys(w.comparisons)),
    )
