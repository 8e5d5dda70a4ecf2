"""Compile a checked CEL AST into a tree of Python closures that evaluate against a device."""

# Every closure takes one argument, the DeviceInput (or an Activation: a DeviceInput with
# comprehension variables and a cost meter), and returns a value or raises `EvalError` (a CEL error,
# which `&&`, `||` and comprehensions may absorb) or `CostLimitExceeded` (aborts the evaluation).

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from drasim.cel import cost
from drasim.cel.ast import Call as CallExpr
from drasim.cel.ast import (
    CheckedAst,
    Comprehension,
    Const,
    CreateList,
    CreateStruct,
    Expr,
    Ident,
    Select,
    walk,
)
from drasim.cel.cost import CostLimitExceeded
from drasim.cel.device import EMPTY_MAP
from drasim.cel.env import TYPE_NAMES, CelEnvironment, runtime_functions
from drasim.cel.library.standard import no_overload
from drasim.cel.values import (
    OPTIONAL_NONE,
    DefaultingMap,
    DeviceValue,
    EvalError,
    OptionalValue,
    TypeValue,
    UInt,
    cel_equal,
    go_type_name,
    map_lookup,
)

# Closures receive the DeviceInput itself, or an Activation (a DeviceInput with variables and cost).
Fn = Callable[[Any], Any]


class CompileError(Exception):
    """The AST uses something the evaluator cannot run (reported as a compile error)."""


_DEVICE_FIELDS = ("driver", "attributes", "capacity", "allowMultipleAllocations")


def _device_field(dv: DeviceValue, name: str) -> Any:
    view = dv.view
    if name == "driver":
        return view.driver
    if name == "attributes":
        return view.attributes_map(dv.lists)
    if name == "capacity":
        return view.capacity_map()
    if name == "allowMultipleAllocations":
        return view.allow_multi
    raise EvalError(f"no such key: {name}")


def _key_text(k: Any) -> str:
    if type(k) is bool:
        return "true" if k else "false"
    return str(k)


def select_value(v: Any, name: str) -> Any:
    """`v.name` at runtime."""
    tv = type(v)
    if tv is dict:
        try:
            return v[name]
        except KeyError:
            raise EvalError(f"no such key: {name}") from None
    if tv is DefaultingMap:
        return v.get(name, EMPTY_MAP)
    if tv is OptionalValue:
        if not v.present:
            return OPTIONAL_NONE
        inner = v.value
        if isinstance(inner, dict):
            found, r = map_lookup(inner, name)
            if not found:
                return EMPTY_MAP if type(inner) is DefaultingMap else OPTIONAL_NONE
            return OptionalValue(True, r)
        return OptionalValue(True, select_value(inner, name))
    if tv is DeviceValue:
        return _device_field(v, name)
    raise no_overload()


def has_field(v: Any, name: str) -> bool:
    """`has(v.name)` at runtime."""
    if type(v) is dict:
        return name in v
    if type(v) is DefaultingMap:
        return True  # upstream's presence test uses the wrapper's Find, which always finds
    if type(v) is DeviceValue:
        return name in _DEVICE_FIELDS
    if type(v) is OptionalValue:
        return v.present and has_field(v.value, name)
    raise no_overload()


def _list_index(lst: Any, k: Any) -> Any:
    tk = type(k)
    if tk is int or tk is UInt or (tk is float and k.is_integer()):
        i = int(k)
    else:
        raise EvalError(f"unsupported index type '{tk.__name__}' in list")
    if i < 0 or i >= len(lst):
        raise EvalError(f"index '{i}' out of range in list size '{len(lst)}'")
    return lst[i]


def index_value(c: Any, k: Any) -> Any:
    """`c[k]` at runtime."""
    tc = type(c)
    if tc is dict:
        if type(k) is str:
            try:
                return c[k]
            except KeyError:
                raise EvalError(f"no such key: {k}") from None
        found, v = map_lookup(c, k)
        if not found:
            raise EvalError(f"no such key: {_key_text(k)}")
        return v
    if tc is DefaultingMap:
        found, v = map_lookup(c, k)
        return v if found else EMPTY_MAP
    if tc is list or tc is tuple:
        return _list_index(c, k)
    if tc is OptionalValue:
        return opt_index(c, k)
    raise no_overload()


def opt_index(c: Any, k: Any) -> OptionalValue:
    """`c[?k]`: optional.none() when the key or index is absent."""
    if type(c) is OptionalValue:
        if not c.present:
            return OPTIONAL_NONE
        c = c.value
    if isinstance(c, dict):
        found, v = map_lookup(c, k)
        if found:
            return OptionalValue(True, v)
        return OptionalValue(True, EMPTY_MAP) if type(c) is DefaultingMap else OPTIONAL_NONE
    if isinstance(c, (list, tuple)):
        try:
            return OptionalValue(True, _list_index(c, k))
        except EvalError:
            return OPTIONAL_NONE
    raise no_overload()


def opt_select(v: Any, name: str) -> OptionalValue:
    """`v.?name`."""
    if type(v) is OptionalValue:
        if not v.present:
            return OPTIONAL_NONE
        v = v.value
    if isinstance(v, dict):
        if name in v:
            return OptionalValue(True, v[name])
        return OptionalValue(True, EMPTY_MAP) if type(v) is DefaultingMap else OPTIONAL_NONE
    if type(v) is DeviceValue:
        if has_field(v, name):
            return OptionalValue(True, _device_field(v, name))
        return OPTIONAL_NONE
    raise no_overload()


def _iterate(rng: Any, two_vars: bool) -> list[tuple[Any, Any]] | list[Any]:
    if isinstance(rng, (list, tuple)):
        return list(enumerate(rng)) if two_vars else list(rng)
    if isinstance(rng, dict):
        return list(rng.items()) if two_vars else list(rng.keys())
    raise EvalError(f"got '{go_type_name(rng)}', expected iterable type")


# The device's maps by the names a selector reaches them by (cel.reads shares verdicts by what the fast paths
# below read: both match through `device_domain`).
DEVICE_MAPS = {"device.attributes": "attributes", "device.capacity": "capacity"}


def resolved_name(ast: CheckedAst, e: Ident) -> str:
    """The name an identifier refers to: the checker's reference, else its own spelling."""
    ref = ast.refs.get(e.id)
    return ref.name if ref is not None and ref.name else e.name


def device_domain(ast: CheckedAst, e: Expr, scope: Sequence[str] = ()) -> tuple[str, str] | None:
    """(map kind, domain) for `device.attributes["dom"]` / `device.capacity["dom"]` (`scope`: the
    comprehension variables in scope, which shadow the device's names)."""
    if type(e) is CallExpr and e.function == "_[_]" and e.target is None and len(e.args) == 2:
        m, key = e.args
        if type(m) is Ident and m.name not in scope and type(key) is Const and type(key.value) is str:
            kind = DEVICE_MAPS.get(resolved_name(ast, m))
            if kind is not None:
                return kind, key.value
    return None


class Compiler:
    """Turns one checked AST into closures. `scope` tracks comprehension-local variable names."""

    def __init__(self, ast: CheckedAst, env: CelEnvironment) -> None:
        self.ast = ast
        self.env = env
        self.by_name, self.by_overload = runtime_functions(env)
        self.scope: list[str] = []
        self.lists = env.list_type_attributes

    def compile(self) -> Fn:
        return self.c(self.ast.expr)

    # --- dispatch ----------------------------------------------------------------------------

    def c(self, e: Expr) -> Fn:
        if type(e) is Const:
            return self.const(e)
        if type(e) is Ident:
            return self.ident(e)
        if type(e) is Select:
            return self.select(e)
        if type(e) is CallExpr:
            return self.call(e)
        if type(e) is CreateList:
            return self.create_list(e)
        if type(e) is CreateStruct:
            return self.create_struct(e)
        if type(e) is Comprehension:
            return self.comprehension(e)
        raise CompileError(f"unsupported expression node {type(e).__name__}")

    def const(self, e: Const) -> Fn:
        v = e.value

        def f(act: Any, v: Any = v) -> Any:
            return v
        return f

    def ident(self, e: Ident) -> Fn:
        name = e.name
        if name in self.scope:
            def var(act: Any, name: str = name) -> Any:
                v = act.vars[name]
                if type(v) is EvalError:
                    raise v
                return v
            return var
        resolved = resolved_name(self.ast, e)
        if resolved == "device.driver":
            return lambda act: act.driver
        if resolved == "device.attributes":
            lists = self.lists
            return lambda act: act.attributes_map(lists)
        if resolved == "device.capacity":
            return lambda act: act.capacity_map()
        if resolved == "device.allowMultipleAllocations":
            return lambda act: act.allow_multi
        if resolved == "device":
            lists = self.lists
            return lambda act: DeviceValue(act, lists)
        if resolved in TYPE_NAMES:
            tv = TypeValue(resolved)
            return lambda act: tv
        raise CompileError(f"undeclared reference to '{name}'")

    def _device_domain(self, e: Expr) -> tuple[str, str] | None:
        """(map kind, domain) for `device.attributes["dom"]` / `device.capacity["dom"]` (`device_domain`)."""
        return device_domain(self.ast, e, self.scope)

    def _device_entry(self, operand: Expr, name: str) -> Fn | None:
        dd = self._device_domain(operand)
        if dd is None:
            return None
        kind, dom = dd
        qualified = dom + "/" + name
        if kind == "attributes":
            lists = self.lists
            return lambda act: act.attr(dom, name, qualified, lists)
        return lambda act: act.cap(dom, name, qualified)

    def select(self, e: Select) -> Fn:
        name = e.field
        if e.test_only:
            dd = self._device_domain(e.operand)
            if dd is not None:
                kind, dom = dd
                qualified = dom + "/" + name
                if kind == "attributes":
                    return lambda act: act.has_attr(dom, name, qualified)
                return lambda act: act.has_cap(dom, name, qualified)
            operand = self.c(e.operand)
            return lambda act: has_field(operand(act), name)
        fast = self._device_entry(e.operand, name)
        if fast is not None:
            return fast
        operand = self.c(e.operand)

        def sel(act: Any) -> Any:
            return select_value(operand(act), name)
        return sel

    # --- calls -------------------------------------------------------------------------------

    def call(self, e: CallExpr) -> Fn:
        fn = e.function
        special = _SPECIAL.get(fn)
        if special is not None:
            out = special(self, e)
            if out is not None:
                return out
        args = ([e.target] if e.target is not None else []) + list(e.args)
        compiled = [self.c(a) for a in args]
        impl = self._impl(e)
        return _apply(impl, compiled, cost.call_cost(fn))

    def _impl(self, e: CallExpr) -> Callable[..., Any]:
        ref = self.ast.refs.get(e.id)
        if ref is not None and len(ref.overload_ids) == 1:
            impl = self.by_overload.get(ref.overload_ids[0])
            if impl is not None:
                return impl
        impl = self.by_name.get(e.function)
        if impl is None:
            raise CompileError(f"undeclared reference to '{e.function}'")
        return impl

    def create_list(self, e: CreateList) -> Fn:
        elems = [self.c(x) for x in e.elements]
        if not e.optional_indices:
            if not elems:
                return lambda act: []
            return lambda act: [f(act) for f in elems]
        opt = [i in e.optional_indices for i in range(len(elems))]

        def mk(act: Any) -> list[Any]:
            out = []
            for f, is_opt in zip(elems, opt, strict=True):
                v = f(act)
                if is_opt:
                    if type(v) is not OptionalValue:
                        raise no_overload()
                    if v.present:
                        out.append(v.value)
                else:
                    out.append(v)
            return out
        return mk

    def create_struct(self, e: CreateStruct) -> Fn:
        if e.message_name:
            raise CompileError(f"message construction ({e.message_name}) is not supported")
        entries = []
        for ent in e.entries:
            if ent.key is None:
                raise CompileError("map entry without a key")
            entries.append((self.c(ent.key), self.c(ent.value), ent.optional))

        def mk(act: Any) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for kf, vf, optional in entries:
                k = kf(act)
                if type(k) not in (str, int, UInt, bool):
                    raise EvalError(f"unsupported key type: {type(k).__name__}")
                v = vf(act)
                if optional:
                    if type(v) is not OptionalValue:
                        raise no_overload()
                    if not v.present:
                        continue
                    v = v.value
                if map_lookup(out, k)[0]:
                    raise EvalError(f"insert failed: key {_key_text(k)} already exists")
                out[k] = v
            return out
        return mk

    # --- comprehensions ----------------------------------------------------------------------

    def comprehension(self, e: Comprehension) -> Fn:
        rng = self.c(e.iter_range)
        init = self.c(e.accu_init)
        accu = e.accu_var
        iv, iv2 = e.iter_var, e.iter_var2
        # cel.bind: an empty range binds the accumulator to a value for the result expression.
        if type(e.iter_range) is CreateList and not e.iter_range.elements:
            self.scope.append(accu)
            body = self.c(e.result)
            self.scope.pop()

            def bind(act: Any) -> Any:
                try:
                    v = init(act)
                except EvalError as err:
                    v = err
                vs = act.vars
                old = vs.get(accu, _UNSET)
                vs[accu] = v
                try:
                    return body(act)
                finally:
                    if old is _UNSET:
                        del vs[accu]
                    else:
                        vs[accu] = old
            return bind

        self.scope.append(accu)
        self.scope.append(iv)
        if iv2:
            self.scope.append(iv2)
        cond = self.c(e.loop_condition)
        step = self.c(e.loop_step)
        if iv2:
            self.scope.pop()
        self.scope.pop()
        result = self.c(e.result)
        self.scope.pop()
        step_cost = cost.iteration_cost(e)
        two = bool(iv2)
        names = (accu, iv, iv2) if two else (accu, iv)

        def loop(act: Any) -> Any:
            items = _iterate(rng(act), two)
            vs = act.vars
            saved = [vs.get(n, _UNSET) for n in names]
            try:
                try:
                    vs[accu] = init(act)
                except EvalError as err:
                    vs[accu] = err
                for item in items:
                    act.cost += step_cost
                    if act.cost > act.limit:
                        raise CostLimitExceeded()
                    if two:
                        vs[iv], vs[iv2] = item
                    else:
                        vs[iv] = item
                    if cond(act) is not True:
                        break
                    try:
                        vs[accu] = step(act)
                    except EvalError as err:
                        vs[accu] = err
                for n in names[1:]:
                    vs.pop(n, None)
                return result(act)
            finally:
                for n, old in zip(names, saved, strict=True):
                    if old is _UNSET:
                        vs.pop(n, None)
                    else:
                        vs[n] = old
        return loop


_UNSET = object()


def _apply(impl: Callable[..., Any], args: list[Fn], fn_cost: Callable[..., int] | None) -> Fn:
    n = len(args)
    if fn_cost is not None:
        def costed(act: Any) -> Any:
            vals = [a(act) for a in args]
            act.cost += fn_cost(*vals)
            if act.cost > act.limit:
                raise CostLimitExceeded()
            return impl(*vals)
        return costed
    if n == 0:
        return lambda act: impl()
    if n == 1:
        a0 = args[0]
        return lambda act: impl(a0(act))
    if n == 2:
        a0, a1 = args
        return lambda act: impl(a0(act), a1(act))
    if n == 3:
        a0, a1, a2 = args
        return lambda act: impl(a0(act), a1(act), a2(act))
    return lambda act: impl(*[a(act) for a in args])


# --- special forms ---------------------------------------------------------------------------

def _logical(absorbing: bool) -> Callable[[Compiler, CallExpr], Fn]:
    """`&&` (absorbing False) and `||` (absorbing True): commutative for errors, as in CEL: the
    absorbing value on either side wins over an error on the other."""

    def build(comp: Compiler, e: CallExpr) -> Fn:
        left, right = comp.c(e.args[0]), comp.c(e.args[1])

        def logical(act: Any) -> Any:
            try:
                lv = left(act)
            except EvalError as err:
                lerr: EvalError = err
            else:
                if lv is absorbing:
                    return absorbing
                if lv is (not absorbing):
                    rv = right(act)
                    if rv is True or rv is False:
                        return rv
                    raise no_overload()
                lerr = no_overload()
            try:
                rv = right(act)
            except EvalError:
                raise lerr from None
            if rv is absorbing:
                return absorbing
            raise lerr
        return logical
    return build


_and = _logical(False)
_or = _logical(True)


def _conditional(comp: Compiler, e: CallExpr) -> Fn:
    cond, yes, no = (comp.c(a) for a in e.args)

    def ternary(act: Any) -> Any:
        c = cond(act)
        if c is True:
            return yes(act)
        if c is False:
            return no(act)
        raise no_overload()
    return ternary


def _not_strictly_false(comp: Compiler, e: CallExpr) -> Fn:
    arg = comp.c(e.args[0])

    def nsf(act: Any) -> bool:
        try:
            return arg(act) is not False
        except EvalError:
            return True
    return nsf


def _not(comp: Compiler, e: CallExpr) -> Fn:
    arg = comp.c(e.args[0])

    def not_(act: Any) -> bool:
        v = arg(act)
        if v is True:
            return False
        if v is False:
            return True
        raise no_overload()
    return not_


def _const_str(e: Expr) -> str | None:
    if type(e) is Const and type(e.value) is str:
        return e.value
    return None


def _equals(comp: Compiler, e: CallExpr) -> Fn:
    a, b = e.args
    s = _const_str(b)
    other = a
    if s is None:
        s = _const_str(a)
        other = b
    if s is not None:
        f = comp.c(other)
        return lambda act: f(act) == s
    fa, fb = comp.c(a), comp.c(b)
    return lambda act: cel_equal(fa(act), fb(act))


def _not_equals(comp: Compiler, e: CallExpr) -> Fn:
    eq = _equals(comp, e)
    return lambda act: not eq(act)


def _index(comp: Compiler, e: CallExpr) -> Fn:
    container, key = e.args
    dd = comp._device_domain(e)
    if dd is not None:
        kind, dom = dd
        if kind == "attributes":
            lists = comp.lists
            return lambda act: act.attr_domain(dom, lists)
        return lambda act: act.cap_domain(dom)
    name = _const_str(key)
    if name is not None:
        fast = comp._device_entry(container, name)
        if fast is not None:
            return fast
    fc, fk = comp.c(container), comp.c(key)
    return lambda act: index_value(fc(act), fk(act))


def _opt_select(comp: Compiler, e: CallExpr) -> Fn:
    operand, field = e.args
    name = _const_str(field)
    if name is None:
        raise CompileError("optional field selection needs a constant field name")
    dd = comp._device_domain(operand)
    if dd is not None:
        kind, dom = dd
        qualified = dom + "/" + name
        if kind == "attributes":
            lists = comp.lists
            return lambda act: act.attr_opt(dom, name, qualified, lists)
        return lambda act: act.cap_opt(dom, name, qualified)
    f = comp.c(operand)
    return lambda act: opt_select(f(act), name)


def _opt_index(comp: Compiler, e: CallExpr) -> Fn:
    fc, fk = comp.c(e.args[0]), comp.c(e.args[1])
    return lambda act: opt_index(fc(act), fk(act))


def _or_value(comp: Compiler, e: CallExpr) -> Fn | None:
    if e.target is None:
        return None
    target, alt = comp.c(e.target), comp.c(e.args[0])

    def or_value(act: Any) -> Any:
        o = target(act)
        if type(o) is not OptionalValue:
            raise no_overload()
        return o.value if o.present else alt(act)
    return or_value


def _opt_or(comp: Compiler, e: CallExpr) -> Fn | None:
    if e.target is None:
        return None
    target, alt = comp.c(e.target), comp.c(e.args[0])

    def opt_or(act: Any) -> Any:
        o = target(act)
        if type(o) is not OptionalValue:
            raise no_overload()
        if o.present:
            return o
        other = alt(act)
        if type(other) is not OptionalValue:
            raise no_overload()
        return other
    return opt_or


def _map_insert(comp: Compiler, e: CallExpr) -> Fn:
    args = [comp.c(a) for a in e.args]

    def insert(act: Any) -> dict[Any, Any]:
        vals = [a(act) for a in args]
        base = vals[0]
        if not isinstance(base, dict):
            raise no_overload()
        out = dict(base)
        extra = vals[1] if len(vals) == 2 else {vals[1]: vals[2]}
        if not isinstance(extra, dict):
            raise no_overload()
        for k, v in extra.items():
            if map_lookup(out, k)[0]:
                raise EvalError(f"insert failed: key {_key_text(k)} already exists")
            out[k] = v
        return out
    return insert


_SPECIAL: dict[str, Callable[[Compiler, CallExpr], Fn | None]] = {
    "_&&_": _and, "_||_": _or, "_?_:_": _conditional, "@not_strictly_false": _not_strictly_false,
    "!_": _not, "_==_": _equals, "_!=_": _not_equals, "_[_]": _index, "_?._": _opt_select,
    "_[?_]": _opt_index, "orValue": _or_value, "or": _opt_or, "cel.@mapInsert": _map_insert,
}


def compile_program(ast: CheckedAst, env: CelEnvironment) -> Fn:
    """The closure tree of a checked AST."""
    return Compiler(ast, env).compile()


def has_comprehension(ast: CheckedAst) -> bool:
    return any(type(n) is Comprehension for n in walk(ast.expr))
