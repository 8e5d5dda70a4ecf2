"""Request-level lint rules on the published devices: requests and alternatives matching nothing (with the
nearest miss), constraint attributes nobody publishes, class names naming nothing, unbacked extended resources."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterator, Sequence

from drasim.allocator.checks import capacity_rejection
from drasim.allocator.constraints import lookup_attribute
from drasim.api import core
from drasim.api import resource as r
from drasim.cel import CelCompileError, CelEnvironment, compile_selector
from drasim.lint.base import DeviceView, LintContext, LintFinding, Workload, ref_of, skipped
from drasim.lint.celfacts import Comparison, selector_facts
from drasim.lint.rules_cel import Reach, env_of, selector_pass
from drasim.scheduler.backing import unbacked_extended

__all__ = ["check_classes_exist", "check_constraints", "check_requests_match", "check_unbacked_extended"]

# Distinct published values named in a nearest miss.
_VALUES = 4

_OP_WORDS = {">": "more than", ">=": "at least", "<": "less than", "<=": "at most", "==": "", "!=": "anything but"}


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# --- the nearest miss ---------------------------------------------------------------------------------


def _value_text(d: DeviceView, c: Comparison) -> str | None:
    qualified = f"{c.domain}/{c.name}"
    if c.kind == "capacity":
        opt = d.cap_opt(c.domain, c.name, qualified)
        return str(opt.value) if opt.present else None
    attr = lookup_attribute(d.device, d.driver, qualified)
    if attr is None:
        return None
    value = attr.value()
    return f'"{value}"' if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


def _comparison_miss(c: Comparison, devices: Sequence[DeviceView]) -> str:
    values: Counter[str] = Counter()
    missing = 0
    for d in devices:
        text = _value_text(d, c)
        if text is None:
            missing += 1
        else:
            values[text] += 1
    drivers = ", ".join(sorted({d.driver for d in devices}))
    what = c.name if c.kind == "attributes" else f"{c.name} (capacity)"
    if len(values) == 1:
        (value, count), = values.items()
        have = f"{_n(count, drivers + ' device')} {'has' if count == 1 else 'have'} {what} {value}"
    elif values:
        shown = sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))[:_VALUES]
        more = ", ..." if len(values) > _VALUES else ""
        have = f"{drivers} devices have {what} " + ", ".join(f"{v} ({n})" for v, n in shown) + more
    else:
        have = f"none of the {_n(missing, drivers + ' device')} publishes {what}"
        missing = 0
    if missing:
        have += f" ({missing} other(s) do not publish it)"
    words = _OP_WORDS.get(c.op, c.op)
    return f"{have}; the selector needs {words + ' ' if words else ''}{c.value}"


def _passes_somewhere(c: Comparison, devices: Sequence[DeviceView], env: CelEnvironment) -> bool:
    try:
        program = compile_selector(c.expression(), env)
    except CelCompileError:
        return False
    return any(program.evaluate(d) is True for d in devices)


def nearest_miss(expression: str, devices: Sequence[DeviceView], ctx: LintContext) -> str:
    """Why `expression` matches none of `devices`, in terms of the values they publish: the comparisons
    no device passes (all of them when each passes somewhere and only their combination fails)."""
    env = env_of(ctx)
    facts = selector_facts(expression, env)
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for c in facts.comparisons if facts is not None else ():
        if (c.kind, c.domain, c.name) not in seen:
            seen.add((c.kind, c.domain, c.name))
            unique.append(c)
    failing = [c for c in unique if not _passes_somewhere(c, devices, env)] or unique
    parts = [_comparison_miss(c, devices) for c in failing]
    if parts:
        return "; ".join(parts)
    drivers = ", ".join(sorted({d.driver for d in devices}))
    return f"it is false for every one of the {_n(len(devices), drivers + ' device')} it is evaluated on"


# --- requests and alternatives matching nothing --------------------------------------------------------


def _why_nothing(reach: Reach, class_name: str, selectors: Sequence[r.DeviceSelector], ctx: LintContext,
                 class_reach: Reach) -> tuple[str, str]:
    """(the selector's path suffix, the words) for a request whose reach is empty."""
    if reach is class_reach or reach.blocked is None:
        cls = ctx.classes[class_name]
        i = class_reach.blocked
        if i is None:
            return "deviceClassName", f'DeviceClass "{class_name}" lets no published device through'
        cel = cls.spec.selectors[i].cel
        expr = cel.expression if cel is not None else ""
        return "deviceClassName", (f'selector #{i} of DeviceClass "{class_name}" ({expr}) matches nothing: '
                                   f"{nearest_miss(expr, class_reach.before, ctx)}")
    sel = selectors[reach.blocked]
    expr = sel.cel.expression if sel.cel is not None else ""
    return (f"selectors[{reach.blocked}].cel.expression",
            f"selector #{reach.blocked} matches none of the {_n(len(reach.before), 'device')} class "
            f'"{class_name}" lets through: {nearest_miss(expr, reach.before, ctx)}')


def _capacity_miss(alt: r.ExactDeviceRequest | r.DeviceSubRequest, devices: Sequence[DeviceView]) -> str | None:
    """Why no selected device can ever give the capacity the request asks for (the allocator's capacity check
    on an idle device), or None when one can."""
    requests = alt.capacity.requests if alt.capacity is not None else None
    if not requests:
        return None
    reasons: Counter[str] = Counter()
    for d in devices:
        why = capacity_rejection(requests, d.device, None, None)
        if why is None:
            return None
        reasons[why.detail] += 1
    detail, count = reasons.most_common(1)[0]
    return (f"its {_n(len(devices), 'selected device')} cannot give the capacity it requests even when idle "
            f"({count} of them: {detail})")


def _request_entries(ctx: LintContext) -> Iterator[tuple[str, str, r.DeviceRequest]]:
    """(object, request path, request) of every claim and template."""
    for obj, spec, prefix in ctx.claim_specs():
        for i, req in enumerate(spec.devices.requests):
            yield obj, f"{prefix}.devices.requests[{i}]", req


def check_requests_match(ctx: LintContext) -> list[LintFinding]:
    """request-matches-nothing: a request, or a `firstAvailable` alternative, that no published device matches."""
    entries = list(_request_entries(ctx))
    if not entries:
        return []
    if not ctx.devices:
        return [skipped("request-matches-nothing", "no ResourceSlices among the inputs, so which devices a "
                         "request could match is unknown (add the fleet's slices with -f, or read a cluster)")]
    done = selector_pass(ctx)
    out: list[LintFinding] = []
    for obj, path, req in entries:
        alts: list[tuple[str, str, r.ExactDeviceRequest | r.DeviceSubRequest]] = []
        if req.exactly is not None:
            alts.append((f"{path}.exactly", req.name, req.exactly))
        for j, sub in enumerate(req.first_available or []):
            alts.append((f"{path}.firstAvailable[{j}]", f"{req.name}/{sub.name}", sub))
        dead = []
        for alt_path, name, alt in alts:
            reach = done.requests.get((obj, alt_path))
            if reach is None or reach.matched is None:
                continue  # unknown class (device-class-not-found) or a selector that does not compile
            if reach.matched:
                # Capacity requests count only where the API server keeps them (DRAConsumableCapacity).
                words = _capacity_miss(alt, reach.matched) if ctx.features.consumable_capacity else None
                if words is not None:
                    dead.append((alt_path, name, "capacity.requests", words))
                continue
            suffix, words = _why_nothing(reach, alt.device_class_name, alt.selectors, ctx,
                                         done.classes[alt.device_class_name])
            dead.append((alt_path, name, suffix, words))
        for alt_path, name, suffix, words in dead:
            if len(alts) == 1:
                severity, tail = "error", "the claim can never be allocated"
            elif len(dead) == len(alts):
                severity, tail = "error", "no alternative of this request matches anything: it can never be allocated"
            else:
                severity, tail = "warning", "this alternative is never chosen; the request falls through to the next"
            out.append(LintFinding("request-matches-nothing", severity, obj, f"{alt_path}.{suffix}",
                                   f'request "{name}" matches no published device: {words}; {tail}'))
    return out


# --- constraints ---------------------------------------------------------------------------------------


def _constraint_targets(spec: r.ResourceClaimSpec, prefix: str, names: Sequence[str]
                        ) -> Iterator[tuple[str, str, str]]:
    """(request path, request name, alternative path) of each alternative a constraint applies to."""
    for i, req in enumerate(spec.devices.requests):
        path = f"{prefix}.devices.requests[{i}]"
        if req.exactly is not None and (not names or req.name in names):
            yield path, req.name, f"{path}.exactly"
        for j, sub in enumerate(req.first_available or []):
            if not names or req.name in names or f"{req.name}/{sub.name}" in names:
                yield path, f"{req.name}/{sub.name}", f"{path}.firstAvailable[{j}]"


def _similar(attribute: str, devices: Sequence[DeviceView]) -> str:
    base = attribute.rpartition("/")[2].casefold()
    names = sorted({k.rpartition("/")[2] for d in devices for k in d.device.attributes})
    close = [n for n in names if base in n.casefold()] or difflib.get_close_matches(attribute.rpartition("/")[2],
                                                                                     names, n=3)
    return f" (they publish {', '.join(close[:3])})" if close else ""


def check_constraints(ctx: LintContext) -> list[LintFinding]:
    """constraint-attribute-missing: a matchAttribute/distinctAttribute that none of the devices a
    constrained request could take publishes (the allocator then rejects every one of them)."""
    if not ctx.devices:
        return []
    done = selector_pass(ctx)
    out: list[LintFinding] = []
    for obj, spec, prefix in ctx.claim_specs():
        for k, c in enumerate(spec.devices.constraints):
            for field, attribute in (("matchAttribute", c.match_attribute),
                                     ("distinctAttribute", getattr(c, "distinct_attribute", None))):
                if not attribute:
                    continue
                by_request: dict[str, list[tuple[str, list[DeviceView]]]] = {}
                for req_path, name, alt_path in _constraint_targets(spec, prefix, c.requests):
                    reach = done.requests.get((obj, alt_path))
                    if reach is None or not reach.matched:
                        continue  # nothing to take anyway: request-matches-nothing says why
                    lacking = [d for d in reach.matched if lookup_attribute(d.device, d.driver, attribute) is None]
                    by_request.setdefault(req_path, []).append(
                        (name, reach.matched) if len(lacking) == len(reach.matched) else ("", []))
                for alts in by_request.values():
                    dead = [(name, devices) for name, devices in alts if name]
                    for name, devices in dead:
                        severity = "error" if len(dead) == len(alts) else "warning"
                        drivers = ", ".join(sorted({d.driver for d in devices}))
                        out.append(LintFinding(
                            "constraint-attribute-missing", severity, obj, f"{prefix}.devices.constraints[{k}].{field}",
                            f'{field} "{attribute}" applies to request "{name}", but none of the '
                            f"{_n(len(devices), drivers + ' device')} it could take publishes that attribute"
                            f"{_similar(attribute, devices)}: the allocator rejects every one of them, so "
                            + ("the claim can never be allocated" if severity == "error"
                               else "this alternative is never chosen"),
                        ))
    return out


# --- class names -------------------------------------------------------------------------------------


def check_classes_exist(ctx: LintContext) -> list[LintFinding]:
    """device-class-not-found: a deviceClassName (of a request or one alternative) naming no DeviceClass."""
    views = list(ctx.requests())
    if not views:
        return []
    if not ctx.classes:
        return [skipped("device-class-not-found", "no DeviceClass among the inputs, so the class names of "
                         "requests cannot be checked (add the cluster's DeviceClasses with -f, or read a cluster)")]
    known = sorted(ctx.classes)
    out = []
    for req in views:
        if not req.class_name or req.class_name in ctx.classes:
            continue  # an empty name is api-validation's
        close = difflib.get_close_matches(req.class_name, known, n=3)
        near = f" (did you mean {', '.join(close)}?)" if close else f" (the inputs define {', '.join(known[:6])})"
        out.append(LintFinding(
            "device-class-not-found", "error", req.obj, f"{req.path}.deviceClassName",
            f'DeviceClass "{req.class_name}" does not exist{near}: the scheduler cannot allocate this '
            "request and the pod stays Pending",
        ))
    return out


# --- extended resources ---------------------------------------------------------------------------------


def _pod_specs(ctx: LintContext) -> Iterator[tuple[str, str, core.PodSpec]]:
    for o in ctx.pods_and_workloads:
        if isinstance(o, core.Pod):
            yield ref_of(o), "spec", o.spec
        elif isinstance(o, Workload):
            yield ref_of(o), "spec.template.spec", o.spec.template.spec


def check_unbacked_extended(ctx: LintContext) -> list[LintFinding]:
    """extended-resource-unbacked: a container requesting an extended resource that no Node advertises
    and no DeviceClass serves (`extendedResourceName` or the implicit class name)."""
    nodes = ctx.nodes
    if not nodes and not ctx.slices:
        return []  # a workload alone: where it runs is not among the inputs
    out = []
    for obj, prefix, spec in _pod_specs(ctx):
        for path, name in unbacked_extended(spec, nodes, ctx.classes):
            out.append(LintFinding(
                "extended-resource-unbacked", "error", obj, f"{prefix}.{path}",
                f'extended resource "{name}" is advertised by none of the {_n(len(nodes), "Node")} '
                "and no DeviceClass maps it (spec.extendedResourceName): the pod stays Pending with "
                f'"Insufficient {name}". Install the device plugin that advertises it, or give a '
                f"DeviceClass extendedResourceName: {name}",
            ))
    return out
