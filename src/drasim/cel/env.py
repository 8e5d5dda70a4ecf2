"""CEL environments for device selectors: declarations handed to cel-cpp's checker, per feature set."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from typing import Any

from cel_expr_python import cel

from drasim import releases
from drasim.cel.library import Function, Impl, dra, lists, quantity, regex, semver, standard, strings
from drasim.cel.library.lists import EXT_IMPLS
from drasim.cel.library.optional import IMPLS as OPTIONAL_IMPLS
from drasim.cel.library.standard import STANDARD_IMPLS
from drasim.cel.library.timeutil import GETTERS
from drasim.cel.values import DEVICE_TYPE, QUANTITY_TYPE, SEMVER_TYPE


@dataclass(frozen=True, slots=True)
class CelEnvironment:
    """Which declarations a selector compiles against.

    `stored=True` is upstream's "StoredExpressions" environment (everything the binary knows: used
    by the allocator and for unchanged stored objects); `stored=False` is "NewExpressions"
    (validation of new or changed expressions: feature-gated declarations only when the gate is
    on, plus the length and estimated-cost limits). The two gates also change runtime behaviour:
    `list_type_attributes` makes attribute values `dyn` (macros work on list attributes) and lets
    list-valued attributes through; without it a list attribute is "unsupported attribute value".
    """

    consumable_capacity: bool = True
    list_type_attributes: bool = False
    stored: bool = True

    @property
    def declares_allow_multiple_allocations(self) -> bool:
        return self.stored or self.consumable_capacity

    @property
    def declares_includes(self) -> bool:
        return self.stored or self.list_type_attributes


DEFAULT_ENV = CelEnvironment()


def stored_environment(release: str, list_type_attributes: bool) -> CelEnvironment:
    """The stored-expressions environment kube-scheduler's allocator compiles selectors in, for `release` and
    its DRAListTypeAttributes gate. From 1.37 it reads list attributes whatever the gate says (releases)."""
    lists = list_type_attributes or releases.stored_selectors_read_lists(release)
    return CelEnvironment(consumable_capacity=True, list_type_attributes=lists)

_CONFIG_YAML = """
stdlib:
  exclude_functions:
    - name: "_<_"
    - name: "_<=_"
    - name: "_>_"
    - name: "_>=_"
extensions:
  - name: lists
    version: latest
  - name: sets
    version: latest
  - name: two-var-comprehensions
    version: latest
  - name: optional
    version: latest
  - name: bindings
    version: latest
"""

_BASE_FUNCTIONS: list[Function] = [
    *standard.FUNCTIONS, *strings.FUNCTIONS, *lists.FUNCTIONS, *regex.FUNCTIONS,
    *quantity.FUNCTIONS, *semver.FUNCTIONS,
]


def functions_for(env: CelEnvironment) -> list[Function]:
    """The functions this library declares (cel-cpp declares the rest of the standard library)."""
    fns = list(_BASE_FUNCTIONS)
    if env.declares_includes:
        fns.append(dra.INCLUDES)
    return fns


@cache
def runtime_functions(env: CelEnvironment) -> tuple[dict[str, Impl], dict[str, Impl]]:
    """(implementation by function name, implementation by overload id) for the evaluator."""
    by_name: dict[str, Impl] = {}
    by_name.update(STANDARD_IMPLS)
    by_name.update(GETTERS)
    by_name.update(EXT_IMPLS)
    by_name.update(OPTIONAL_IMPLS)
    by_name["matches"] = regex.matches
    by_overload: dict[str, Impl] = {}
    for fn in functions_for(env):
        by_name[fn.name] = fn.impl
        by_overload.update(fn.by_overload)
    return by_name, by_overload


# --- building the cel-cpp environment ------------------------------------------------------------

def _split_params(s: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur.append(ch)
    out.append("".join(cur).strip())
    return out


def _yaml_type(sig: str, indent: str) -> list[str]:
    """A type signature (`list(A)`, `map(string, int)`, `kubernetes.Quantity`) as cel-cpp config YAML."""
    sig = sig.strip()
    for prefix in ("list", "map"):
        if sig.startswith(prefix + "(") and sig.endswith(")"):
            lines = [f"{indent}type_name: {prefix}", f"{indent}params:"]
            for p in _split_params(sig[len(prefix) + 1:-1]):
                sub = _yaml_type(p, indent + "    ")
                lines.append(indent + "  - " + sub[0].strip())
                lines.extend(sub[1:])
            return lines
    if len(sig) == 1 and sig.isupper():
        return [f"{indent}type_name: {sig}", f"{indent}is_type_param: true"]
    return [f'{indent}type_name: "{sig}"']


def _functions_yaml(fns: list[Function]) -> str:
    lines = ["functions:"]
    for fn in fns:
        lines.append(f'  - name: "{fn.name}"')
        lines.append("    overloads:")
        for o in fn.overloads:
            lines.append(f'      - id: "{o.id}"')
            args = list(o.args)
            if o.member:
                lines.append("        target:")
                lines.extend(_yaml_type(args.pop(0), "          "))
            if args:
                lines.append("        args:")
                for a in args:
                    sub = _yaml_type(a, "            ")
                    lines.append("          - " + sub[0].strip())
                    lines.extend(sub[1:])
            lines.append("        return:")
            lines.extend(_yaml_type(o.result, "          "))
    return "\n".join(lines) + "\n"


def variables_for(env: CelEnvironment) -> dict[str, Any]:
    attr = cel.Type.DYN if env.list_type_attributes else cel.Type("google.protobuf.Any")
    variables = {
        "device": cel.Type.AbstractType(DEVICE_TYPE),
        "device.driver": cel.Type.STRING,
        "device.attributes": cel.Type.Map(cel.Type.STRING, cel.Type.Map(cel.Type.STRING, attr)),
        "device.capacity": cel.Type.Map(cel.Type.STRING,
                                        cel.Type.Map(cel.Type.STRING, cel.Type.AbstractType(QUANTITY_TYPE))),
    }
    if env.declares_allow_multiple_allocations:
        variables["device.allowMultipleAllocations"] = cel.Type.BOOL
    return variables


_lock = threading.Lock()
_envs: dict[CelEnvironment, Any] = {}


def cel_env(env: CelEnvironment) -> Any:
    """The cel-cpp Env for an environment (built once per process)."""
    with _lock:
        built = _envs.get(env)
        if built is None:
            config = cel.NewEnvConfigFromYaml(_CONFIG_YAML + _functions_yaml(functions_for(env)))
            built = cel.NewEnv(config=config, variables=variables_for(env))
            _envs[env] = built
        return built


# Names usable as type values (`type(x) == int`).
TYPE_NAMES = frozenset({"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type",
                        "type", "dyn", "google.protobuf.Timestamp", "google.protobuf.Duration",
                        QUANTITY_TYPE, SEMVER_TYPE})
