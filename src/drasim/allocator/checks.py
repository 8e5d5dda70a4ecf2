"""The allocator's per-device checks, one home each, listed in search order; each says why it rejects a device.

The search (`allocator.search`) composes them; explain hears the verdicts through the search's reporter
hook and the scheduler's node grouping (`scheduler.grouping`) keys nodes on `selectable`. Reason codes are
stable (explain's JSON uses them); `REASON_ORDER` is the order in which the search meets them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import NamedTuple

import msgspec

from drasim import releases
from drasim.allocator import capacity as cap
from drasim.allocator.cache import Candidate, Number
from drasim.allocator.celmatch import SelectorMemo
from drasim.allocator.features import Features
from drasim.api.core import Node
from drasim.api.nodeaffinity import NodeSelectorError, node_matches
from drasim.api.quantity import Quantity
from drasim.api.resource import Device, DeviceClass, DeviceSelector, DeviceTaint, DeviceToleration
from drasim.cel import CelCompileError, CelRuntimeError

# In the order the search applies them (the in-use test comes first: it is the cheapest).
REASON_ORDER = ("in-use", "binding-conditions", "class-selector", "request-selector", "cel-error",
                "node-selection", "capacity", "counters-unsupported", "counters", "taint", "constraint")


class Rejection(NamedTuple):
    """Why a device cannot be used for a request.

    `fatal`: the allocator fails the whole call with `detail` as its error (CEL errors, unparsable node
    selectors). `subject` names what the check looked at when that is not in the text (the counter set).
    """

    reason: str
    detail: str = ""
    fatal: bool = False
    subject: str = ""


IN_USE = Rejection("in-use")
IN_USE_UNMATCHED = Rejection("in-use", "would not match the request either")
BINDING_CONDITIONS = Rejection("binding-conditions")
COUNTERS_UNSUPPORTED = Rejection("counters-unsupported")
COUNTERS = Rejection("counters")
TAINT = Rejection("taint")
CONSTRAINT = Rejection("constraint")
CAPACITY = Rejection("capacity")


# --- selectors and node selection (upstream `isSelectable`) ------------------------------------------

def selectors_rejection(memo: SelectorMemo, cand: Candidate, selectors: Sequence[DeviceSelector], who: str,
                        reason: str, release: str) -> Rejection | None:
    """The first selector that is false (`reason`) or fails (a fatal `cel-error` with the release's text)."""
    for i, sel in enumerate(selectors):
        expression = sel.cel.expression if sel.cel is not None else ""
        try:
            outcome = memo.evaluate(expression, cand.id.driver, cand.device)
        except CelCompileError as err:
            return Rejection("cel-error", f"{who}: selector #{i}: CEL compile error: {err.message}", True)
        if isinstance(outcome, CelRuntimeError):
            dev = cand.id
            return Rejection("cel-error", releases.cel_runtime_error(
                release, who, i, f"{dev.driver}/{dev.pool}/{dev.device}", outcome.message), True)
        if not outcome:
            return Rejection(reason, f"selector #{i}: {expression}")
    return None


def selectable(memo: SelectorMemo, features: Features, node: Node, cls: DeviceClass | None,
               selectors: Sequence[DeviceSelector], claim_who: str, cand: Candidate) -> Rejection | None:
    """Binding conditions, the class's selectors, the request's selectors, the device's own node selection."""
    dev = cand.device
    if not features.device_binding_and_status and dev.binding_conditions:
        return BINDING_CONDITIONS
    if cls is not None and cls.spec.selectors:
        why = selectors_rejection(memo, cand, cls.spec.selectors, f"class {cls.metadata.name}", "class-selector",
                                  features.release)
        if why is not None:
            return why
    if selectors:
        why = selectors_rejection(memo, cand, selectors, claim_who, "request-selector", features.release)
        if why is not None:
            return why
    if cand.slice.spec.per_device_node_selection:
        try:
            ok = node_matches(node, dev.node_name, dev.all_nodes, dev.node_selector)
        except NodeSelectorError as err:
            return Rejection("node-selection", f"failed to parse node selector: {err}", True)
        if not ok:
            return Rejection("node-selection", "the device's own node selection does not match")
    return None


# --- consumable capacity -----------------------------------------------------------------------------

def capacity_rejection(requests: Mapping[str, Quantity] | None, dev: Device,
                       already: Mapping[str, Quantity] | None, allocating: Mapping[str, Quantity] | None
                       ) -> Rejection | None:
    """`capacity.fits`, and when it fails the first capacity that does not fit, in words."""
    if cap.fits(requests, dev, already, allocating):  # type: ignore[arg-type]
        return None
    return Rejection("capacity", _capacity_detail(requests, dev, already, allocating))


def _capacity_detail(requests: Mapping[str, Quantity] | None, dev: Device, already: Mapping[str, Quantity] | None,
                     allocating: Mapping[str, Quantity] | None) -> str:
    for name in requests or {}:
        if name not in dev.capacity:
            return f"requests capacity {name}, which the device does not have"
    for name, c in dev.capacity.items():
        wanted = requests.get(name) if requests else None
        # One capacity at a time through the same function finds the culprit.
        one = msgspec.structs.replace(dev, capacity={name: c})
        if cap.fits({name: wanted} if wanted is not None else None, one,
                    {name: already[name]} if already and name in already else None,
                    {name: allocating[name]} if allocating and name in allocating else None):
            continue
        consumed = cap.consumed_quantity(wanted, c)
        used = already.get(name) if already else None
        if allocating and name in allocating:
            used = allocating[name] if used is None else used + allocating[name]
        left = c.value - used if used is not None else c.value
        if consumed > left:
            return f"{name}: needs {consumed}, {left} of {c.value} left"
        return f"{name}: {consumed} is not allowed by the device's request policy"
    return "does not fit"


# --- shared counters ---------------------------------------------------------------------------------

def counters_exceeded(available: Mapping[str, Mapping[str, Number]],
                      consumed: Mapping[str, Mapping[str, Number]]) -> tuple[str, str] | None:
    """The first (counter set, counter) whose tally of this attempt exceeds what is available."""
    for set_name, counters in available.items():
        used = consumed.get(set_name)
        for name, value in counters.items():
            if value < (used.get(name, 0) if used else 0):
                return set_name, name
    return None


def counters_rejection(cand: Candidate, available: Mapping[str, Mapping[str, Number]],
                       consumed: Mapping[str, Mapping[str, Number]], set_name: str, name: str) -> Rejection:
    """Words for an exhausted counter: what the device needs and what is left (tallies include the device)."""
    mine: Number = 0
    for s, amounts in cand.consumption:
        if s == set_name:
            for n, amount in amounts:
                if n == name:
                    mine += amount
    value = available[set_name][name]
    need = consumed.get(set_name, {}).get(name, 0)
    cs = cand.pool.counter_sets.get(set_name)
    like = cs.counters[name].value if cs is not None and name in cs.counters else None
    left = value - (need - mine)
    if mine:
        detail = (f"counter set {set_name}: {name} needs {_fmt_number(mine, like)}, "
                  f"{_fmt_number(max(left, 0), like)} left")
    else:
        detail = f"counter set {set_name}: {name} is overcommitted ({_fmt_number(left, like)})"
    return Rejection("counters", detail, subject=set_name)


def _fmt_number(n: Number, like: Quantity | None) -> str:
    if isinstance(n, int) or (isinstance(n, Fraction) and n.denominator == 1):
        return str(Quantity.from_int(int(n), like.format if like is not None else "DecimalSI"))
    return str(n)


# --- taints --------------------------------------------------------------------------------------------

def tolerates(tol: DeviceToleration, taint: DeviceTaint) -> bool:
    """Upstream `ToleratesTaint` (spec §4.12)."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    if tol.operator == "Exists":
        return True
    if tol.operator in (None, "", "Equal"):
        return (tol.value or "") == (taint.value or "")
    return False


def untolerated_taint(device: Device, tolerations: Sequence[DeviceToleration]) -> DeviceTaint | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates: it prevents allocating the device."""
    for taint in device.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def taint_rejection(taint: DeviceTaint) -> Rejection:
    text = f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"
    return Rejection("taint", f"taint {text}", subject=text)


# --- constraints ---------------------------------------------------------------------------------------

def constraint_rejection(kind: str, attribute: str, has_attribute: bool) -> Rejection:
    why = "the device does not have this attribute" if not has_attribute else \
        "the device's value does not fit the devices already chosen"
    return Rejection("constraint", f"{kind} {attribute}: {why}")
