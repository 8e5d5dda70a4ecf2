"""Node signatures for DynamicResources: nodes with equal signatures get the same allocator answer."""

# The allocator's search on a node reads only the node's candidate list (its pools' devices in search
# order) and, per position: whether the device is selectable for each request/subrequest of the claims,
# its in-use state, taints, counter consumption, capacities, binding conditions and the values of the
# attributes the claims' constraints compare. A signature records exactly these, position by position,
# with two canonicalisations that keep the search's control flow intact:
# * constraint attribute values become the index of their first occurrence on the node (only equality
#   between devices matters, so GPUs with different UUIDs but the same equality pattern match); a
#   non-scalar value gets a fresh index (it never equals anything); with ListTypeAttributes the raw value
#   sets are kept, because their intersections matter;
# * pool names become the index of their first occurrence (counters are tallied per pool name).
# Selectability is evaluated eagerly for every (position, request) by the allocator's own check with the
# same CEL memo the search uses; its answer (None, or the rejection with its words) is recorded, so two
# nodes share a signature only if the search would meet the same selector outcome, CEL error included,
# at the same point (the error text itself is then taken from a direct call).

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from drasim.allocator import AllocatedState, Features, checks
from drasim.allocator.cache import Candidate, NodeView
from drasim.allocator.celmatch import SelectorMemo
from drasim.allocator.checks import Rejection
from drasim.allocator.constraints import _as_set, _scalar, lookup_attribute
from drasim.allocator.pools import Pool
from drasim.api.core import Node
from drasim.api.quantity import Quantity
from drasim.api.resource import DeviceClass, DeviceSelector, ResourceClaim, ResourceClaimSpec


def _quantity_token(obj: object) -> object:
    # The spelling, not the value: the consumable-capacity "equals default" check compares representations.
    if isinstance(obj, Quantity):
        return obj.original if obj.original is not None else "=" + str(obj)
    raise NotImplementedError(f"cannot encode {type(obj).__name__}")


_encode = msgspec.json.Encoder(enc_hook=_quantity_token).encode


class Slot:
    """One request (or subrequest) of one claim: what decides whether a device is selectable for it."""

    __slots__ = ("cls", "selectors")

    def __init__(self, cls: DeviceClass | None, selectors: list[DeviceSelector]) -> None:
        self.cls = cls
        self.selectors = selectors


class Shape:
    """The claims of one Allocate call, reduced to what the search reads (DraCaches.shape keys them by
    their specs' `spec_key`s)."""

    __slots__ = ("attrs", "by_content", "expressions", "id", "slots")

    def __init__(self, claims: Sequence[ResourceClaim], classes: dict[str, DeviceClass], ident: int) -> None:
        self.id = ident
        self.slots: list[Slot] = []
        # static_signature's per-position selectability by device content, for one (memo, features) at a time
        # (held by identity: an equal Features object in their place only empties it).
        self.by_content: tuple[SelectorMemo, Features, dict[tuple[object, ...], tuple[Rejection | None, ...]]] \
            | None = None
        attrs: set[str] = set()
        for claim in claims:
            for request in claim.spec.devices.requests:
                subs = request.first_available or []
                if subs:
                    for sub in subs:
                        self.slots.append(Slot(classes.get(sub.device_class_name), sub.selectors))
                else:
                    exact = request.exactly
                    self.slots.append(Slot(classes.get(exact.device_class_name) if exact else None,
                                           exact.selectors if exact else []))
            for con in claim.spec.devices.constraints:
                name = con.match_attribute or con.distinct_attribute
                if name:
                    attrs.add(name)
        self.attrs = tuple(sorted(attrs))
        # Every selector the slots evaluate (classes' and requests'), for SelectorMemo.content_key.
        self.expressions = tuple(dict.fromkeys(
            sel.cel.expression if sel.cel is not None else ""
            for slot in self.slots
            for sel in [*(slot.cls.spec.selectors if slot.cls is not None else ()), *slot.selectors]))


def spec_key(spec: ResourceClaimSpec) -> bytes:
    """One claim's part of a shape's key: its spec (names and namespaces do not steer the search)."""
    return _encode(spec)


def selectable(memo: SelectorMemo, slot: Slot, cand: Candidate, node: Node, features: Features) -> Rejection | None:
    """The allocator's own check (`allocator.checks.selectable`): None, or why the device is not selectable
    (a fatal error without its words, which may name the device: the text comes from a direct call)."""
    why = checks.selectable(memo, features, node, slot.cls, slot.selectors, "claim", cand)
    return why if why is None or not why.fatal else _FATAL


_FATAL = Rejection("fatal", "", True)
# static_signature shares selectability between devices of equal content; off only to prove that this changes
# no signature (tests/scheduler/test_grouping_content.py).
SHARE_SELECTABLE = True


def _attr_token(cand: Candidate, name: str, list_types: bool, position: int) -> object:
    attr = lookup_attribute(cand.device, cand.id.driver, name)
    if attr is None:
        return None
    if list_types:
        return ("set", _as_set(attr))
    value = _scalar(attr)
    return value if value is not None else ("non-scalar", position)


def _counters(totals: dict[str, dict[str, object]]) -> tuple[object, ...]:
    return tuple(sorted((name, tuple(sorted(c.items()))) for name, c in totals.items()))


def static_signature(shape: Shape, view: NodeView, node: Node, memo: SelectorMemo,
                     features: Features) -> tuple[object, ...]:
    """Everything about the node's devices that depends on the slices and the claims, not on allocations."""
    pool_index: dict[str, int] = {}
    pools = []
    for pool in view.pools:
        idx = pool_index.setdefault(pool.name, len(pool_index))
        pools.append((idx, pool.incomplete, pool.invalid, pool.binding_conditions, _counters(pool.counter_totals)))
    canon: list[dict[object, int]] = [{} for _ in shape.attrs]
    list_types = features.list_type_attributes
    capacity = features.consumable_capacity
    held = shape.by_content
    if held is None or held[0] is not memo or held[1] is not features:
        held = shape.by_content = (memo, features, {})
    by_content = held[2]
    # What the slots' selectors read is the same for every device: looked up once (None: no sharing).
    reads = memo.reads(shape.expressions) if SHARE_SELECTABLE else None
    positions = []
    for p, cand in enumerate(view.candidates):
        dev = cand.device
        # Devices of one model differ in names and UUIDs, which selectors rarely read: the slots' verdicts
        # are shared by devices equal in all the selectors read (SelectorMemo.content_key) and in everything
        # else `checks.selectable` reads but the node, which only per-device node selection brings in.
        key = None
        if reads is not None and not cand.slice.spec.per_device_node_selection:
            content = memo.device_key(reads, cand.id.driver, dev)
            if content is not None:
                key = (bool(dev.binding_conditions), content)
        sel = by_content.get(key) if key is not None else None
        if sel is None:
            sel = tuple(selectable(memo, slot, cand, node, features) for slot in shape.slots)
            if key is not None:
                by_content[key] = sel
        attrs: list[object] = []
        for k, name in enumerate(shape.attrs):
            token = _attr_token(cand, name, list_types, p)
            if token is None or list_types:
                attrs.append(token)
            else:
                attrs.append(canon[k].setdefault(token, len(canon[k])))
        positions.append((
            sel, pool_index[cand.pool.name],
            tuple((t.key, t.value, t.effect) for t in dev.taints),
            tuple((s, tuple(c)) for s, c in cand.consumption),
            bool(dev.binding_conditions), bool(dev.binding_failure_conditions), bool(dev.binds_to_node),
            (bool(dev.allow_multiple_allocations), _encode(dev.capacity)) if capacity else None,
            tuple(attrs)))
    return (tuple(pools), tuple(positions))


def dynamic_signature(view: NodeView, in_use: AllocatedState, capacity: bool,
                      available: Callable[[Pool], dict[str, dict[str, object]]]) -> tuple[object, ...]:
    """What existing allocations change for the search: exclusive use, consumed capacity, free counters."""
    devices = in_use.devices
    cands = view.candidates
    used = tuple(map(devices.__contains__, view.ids))  # per pod on the node it changed: a C loop
    agg = in_use.aggregated_capacity
    consumed = None
    if capacity and agg:
        consumed = tuple(tuple(sorted((n, str(q)) for n, q in agg[c.id].items())) if c.id in agg else None
                         for c in cands)
    counters = tuple(_counters(available(pool)) for pool in view.counted)
    return (used, consumed, counters)
