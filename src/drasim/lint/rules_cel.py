"""Lint rules for CEL selectors checked against the published devices, and MIG profile literals."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from drasim.api import resource as r
from drasim.cel import (
    CelCompileError,
    CelEnvironment,
    CelRuntimeError,
    Program,
    compile_selector,
    stored_environment,
)
from drasim.cel.reads import Read
from drasim.lint.base import DeviceView, LintContext, LintFinding, ref_of
from drasim.lint.celfacts import Lookup, SelectorFacts, selector_facts
from drasim.lint.mig import NVIDIA_DRIVER, catalog_profiles, fleet_models

__all__ = ["Reach", "SelectorPass", "check_mig_profiles", "check_selectors", "env_of", "selector_pass"]

# Examples of devices named in a message.
_EXAMPLES = 3


def env_of(ctx: LintContext) -> CelEnvironment:
    # The scheduler compiles in the stored-expressions environment of the release and its gates.
    return stored_environment(ctx.version, ctx.features.list_type_attributes)


def _expression(sel: r.DeviceSelector) -> str | None:
    return sel.cel.expression if sel.cel is not None and sel.cel.expression else None


def _carries(d: DeviceView, lk: Lookup) -> bool:
    qualified = f"{lk.domain}/{lk.name}"
    if lk.kind == "attributes":
        return d.has_attr(lk.domain, lk.name, qualified)
    return d.has_cap(lk.domain, lk.name, qualified)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _devices_text(devices: Sequence[DeviceView]) -> str:
    drivers = sorted({d.driver for d in devices})
    return f"{_n(len(devices), 'device')} of {', '.join(drivers)}"


@dataclass
class _Outcome:
    """A selector evaluated on the devices that reach it."""

    matched: list[DeviceView] = field(default_factory=list)
    errors: dict[str, list[DeviceView]] = field(default_factory=dict)


def _evaluate(program: Program, devices: Sequence[DeviceView]) -> _Outcome:
    out = _Outcome()
    matched = out.matched
    # A program with known reads gives every device of a content group (group_devices) one outcome.
    shared = program.reads is not None
    by_group: dict[int, bool | CelRuntimeError] = {}
    for d in devices:
        group = d.group if shared else None
        known = by_group.get(group) if group is not None else None
        if known is not None:
            res = known
        else:
            res = program.evaluate(d)
            if group is not None:
                by_group[group] = res
        if res is True:  # evaluate gives True, False or a CelRuntimeError
            matched.append(d)
        elif res is not False:
            out.errors.setdefault(res.message, []).append(d)
    return out


def group_devices(ctx: LintContext, env: CelEnvironment) -> None:
    """Give each device the group of its content as the run's selectors see it (the driver, the flag and
    every entry some selector with known cel.reads reads): equal groups, equal outcomes, so `_evaluate`
    runs a selector once per group, not once per device (a fleet's 78,400 GPUs are a handful of groups).
    Devices whose attributes fail conversion stay ungrouped (the error names their own attribute)."""
    union: set[Read] = set()
    known = 0
    for _, _, expression in _all_expressions(ctx):
        try:
            reads = compile_selector(expression, env).reads
        except CelCompileError:
            continue
        if reads is not None:
            known += 1
            union.update(reads)
    if known < 2:
        return  # a key costs about one evaluation and a half: it pays from the second selector on
    ordered = tuple(sorted(union))
    lists = env.list_type_attributes
    groups: dict[tuple[object, ...], int] = {}
    for d in ctx.devices:
        key = d.content_key(ordered, lists)
        d.group = None if key is None else groups.setdefault(key, len(groups))


def _missing_names(
    obj: str, path: str, facts: SelectorFacts, reach: Sequence[DeviceView], everywhere: Sequence[DeviceView]
) -> tuple[list[LintFinding], set[str]]:
    """cel-missing-attribute for one selector; also the names reported as errors."""
    findings: list[LintFinding] = []
    erroring: set[str] = set()
    by_key: dict[tuple[str, str, str], list[Lookup]] = {}
    for lk in facts.lookups:
        by_key.setdefault((lk.kind, lk.domain, lk.name), []).append(lk)
    for (kind, domain, name), lookups in by_key.items():
        missing_get = missing_test = False
        considered: list[DeviceView] = []
        for lk in lookups:
            drivers = lk.drivers
            if any(_carries(d, lk) for d in reach if drivers is None or d.driver in drivers):
                continue  # the usual answer, mostly from the first device: the pool is listed only when not
            pool = [d for d in reach if drivers is None or d.driver in drivers]
            if not pool:
                continue
            considered = considered or pool
            if lk.guarded:
                missing_test = True
            else:
                missing_get = True
        if not (missing_get or missing_test):
            continue
        what = f'{"attribute" if kind == "attributes" else "capacity"} "{domain}/{name}"'
        elsewhere = any(_carries(d, lookups[0]) for d in everywhere)
        where = f"none of the {_devices_text(considered)} this selector is evaluated on has it"
        if elsewhere:
            where += " (only other devices publish it)"
        elif len(considered) < len(everywhere):
            where += " (nor does any other published device)"
        if missing_get:
            erroring.add(name)
            findings.append(LintFinding(
                "cel-missing-attribute", "error", obj, path,
                f'reads {what}, but {where}: the lookup fails with "no such key: {name}" and the '
                f"scheduler aborts the allocation. Publish it, or guard the lookup with has() or "
                f'.?{name}.orValue(...)',
            ))
        else:
            findings.append(LintFinding(
                "cel-missing-attribute", "warning", obj, path,
                f"tests for {what}, but {where}, so the test is never true (misspelt?)",
            ))
    return findings, erroring


def _runtime_errors(
    obj: str, path: str, outcome: _Outcome, reach: Sequence[DeviceView], reported: set[str]
) -> list[LintFinding]:
    findings = []
    for message, devices in sorted(outcome.errors.items()):
        if message.startswith("no such key: ") and message[len("no such key: "):] in reported:
            continue  # already explained by cel-missing-attribute
        examples = ", ".join(d.id for d in devices[:_EXAMPLES]) + (", ..." if len(devices) > _EXAMPLES else "")
        findings.append(LintFinding(
            "cel-runtime-error", "error", obj, path,
            f"CEL runtime error on {len(devices)} of the {_n(len(reach), 'device')} this selector is "
            f"evaluated on ({examples}): {message}. The allocator fails the whole allocation when its "
            "search reaches such a device",
        ))
    return findings


def _check_selector(
    obj: str, path: str, expression: str, ctx: LintContext, env: CelEnvironment, reach: Sequence[DeviceView]
) -> tuple[list[LintFinding], list[DeviceView] | None]:
    """Findings for one selector and the devices it matches (None when it does not compile)."""
    try:
        program = compile_selector(expression, env)
    except CelCompileError:
        return [], None  # api-validation reports compile errors
    facts = selector_facts(expression, env)
    findings: list[LintFinding] = []
    reported: set[str] = set()
    if facts is not None:
        findings, reported = _missing_names(obj, path, facts, reach, ctx.devices)
    outcome = _evaluate(program, reach)
    findings.extend(_runtime_errors(obj, path, outcome, reach, reported))
    return findings, outcome.matched


@dataclass
class Reach:
    """Which published devices one DeviceClass or request lets through, selector by selector.

    `matched` is None when a selector does not compile (nothing can be said). When it is empty, `blocked`
    is the selector that left no device (None: the class already let none through) and `before` the
    devices that reached it."""

    matched: list[DeviceView] | None
    blocked: int | None = None
    before: list[DeviceView] = field(default_factory=list)


@dataclass
class SelectorPass:
    """check_selectors' work, kept for the request-level rules: findings, and the reach of every class
    (by name) and request (by object and path)."""

    findings: list[LintFinding]
    classes: dict[str, Reach]
    requests: dict[tuple[str, str], Reach]


def _narrow(obj: str, prefix: str, selectors: Sequence[r.DeviceSelector], reach: list[DeviceView] | None,
            ctx: LintContext, env: CelEnvironment, out: list[LintFinding]) -> Reach:
    """Selectors in order, each seeing only the devices the earlier ones matched (as the allocator does)."""
    result = Reach(reach)
    for i, sel in enumerate(selectors):
        expression = _expression(sel)
        if expression is None or not result.matched:
            continue
        before = result.matched
        found, matched = _check_selector(obj, f"{prefix}[{i}].cel.expression", expression, ctx, env, before)
        out.extend(found)
        result = Reach(matched, i, before) if matched is not None and not matched else Reach(matched)
    return result


def selector_pass(ctx: LintContext) -> SelectorPass:
    """Every class and request selector evaluated on the published devices, once per lint run."""
    done = ctx.memo.get("selector_pass")
    if isinstance(done, SelectorPass):
        return done
    done = SelectorPass([], {}, {})
    ctx.memo["selector_pass"] = done
    if not ctx.devices:
        return done
    env = env_of(ctx)
    group_devices(ctx, env)
    out = done.findings
    for name, cls in ctx.classes.items():
        obj = ref_of(cls)
        reach = _narrow(obj, "spec.selectors", cls.spec.selectors, ctx.devices, ctx, env, out)
        done.classes[name] = reach
        if reach.matched is not None and not reach.matched:
            out.append(LintFinding(
                "class-matches-nothing", "warning", obj, "spec.selectors",
                f"no published device matches this class (checked the {_devices_text(ctx.devices)}): "
                "requests for it cannot be allocated",
            ))
    for req in ctx.requests():
        cls_reach = done.classes.get(req.class_name)
        if cls_reach is None:
            continue  # no such class: device-class-not-found
        if not cls_reach.matched:
            done.requests[(req.obj, req.path)] = cls_reach if cls_reach.matched is not None else Reach(None)
            continue
        done.requests[(req.obj, req.path)] = _narrow(
            req.obj, f"{req.path}.selectors", req.selectors, cls_reach.matched, ctx, env, out)
    return done


def check_selectors(ctx: LintContext) -> list[LintFinding]:
    """cel-missing-attribute, cel-runtime-error and class-matches-nothing. Needs published devices:
    without ResourceSlices among the objects nothing can be judged and nothing is reported."""
    return selector_pass(ctx).findings


def _all_expressions(ctx: LintContext) -> Iterator[tuple[str, str, str]]:
    for cls in ctx.classes.values():
        for i, sel in enumerate(cls.spec.selectors):
            expression = _expression(sel)
            if expression is not None:
                yield ref_of(cls), f"spec.selectors[{i}].cel.expression", expression
    for req in ctx.requests():
        for j, sel in enumerate(req.selectors):
            expression = _expression(sel)
            if expression is not None:
                yield req.obj, f"{req.path}.selectors[{j}].cel.expression", expression


def check_mig_profiles(ctx: LintContext) -> list[LintFinding]:
    """mig-profile-unknown: `profile` literals that no GPU model of the fleet offers.

    The fleet is the `productName` of the gpu.nvidia.com devices in the slices; its profiles come from
    the bundled NVIDIA catalog, plus any `profile` a device actually publishes. Without NVIDIA slices
    (or when no model is in the catalog) a literal is checked against every model of the catalog."""
    env = env_of(ctx)
    literals: list[tuple[str, str, str]] = []  # (object, path, literal)
    for obj, path, expression in _all_expressions(ctx):
        facts = selector_facts(expression, env)
        if facts is not None:
            literals += [(obj, path, lit) for lit in dict.fromkeys(facts.literals.get((NVIDIA_DRIVER, "profile"), ()))]
    if not literals:
        return []  # the catalog and the fleet's models only matter for a literal
    catalog = catalog_profiles()
    fleet = fleet_models(ctx.devices)
    known = {k: v for k, v in fleet.items() if k in catalog}
    unknown = sorted(v for k, v in fleet.items() if k not in catalog)
    if known:
        valid = frozenset().union(*(catalog[k] for k in known))
        scope = "the fleet's GPU models (" + ", ".join(sorted(known.values())) + ")"
    else:
        valid = frozenset().union(*catalog.values())
        scope = "any GPU model in drasim's NVIDIA catalog"
    published = {
        d.device.attributes[key].string
        for d in ctx.devices if d.driver == NVIDIA_DRIVER
        for key in ("profile", f"{NVIDIA_DRIVER}/profile")
        if key in d.device.attributes and d.device.attributes[key].string
    }
    out = []
    for obj, path, literal in literals:
        if literal in valid or literal in published:
            continue
        offered = ", ".join(sorted(valid, key=_profile_order)) or "no MIG profiles"
        note = f"; the catalog has no data for {', '.join(unknown)}" if unknown else ""
        out.append(LintFinding(
            "mig-profile-unknown", "warning", obj, path,
            f'MIG profile "{literal}" does not exist on {scope}, which offer: {offered}{note}. '
            "The selector never matches a MIG device",
        ))
    return out


def _profile_order(name: str) -> tuple[int, int, str]:
    """1g.10gb < 1g.10gb+me < 2g.20gb < 7g.80gb: compute slices, then memory, then the rest."""
    head, _, rest = name.partition("g.")
    digits = "".join(ch for ch in rest.split("gb", 1)[0] if ch.isdigit())
    return (int(head) if head.isdigit() else 99, int(digits) if digits else 0, name)
