"""Building an AllocationResult from the devices the search chose: results, configs, node selector, share IDs."""

from __future__ import annotations

import uuid
from collections.abc import Container, Sequence

import msgspec

from drasim import releases
from drasim.allocator.cache import NodeView
from drasim.allocator.errors import AllocationError
from drasim.allocator.features import Features
from drasim.allocator.request import Chosen, RequestData
from drasim.allocator.state import DeviceID
from drasim.api.core import Node
from drasim.api.meta import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from drasim.api.resource import (
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceAllocationResult,
    DeviceRequestAllocationResult,
    ResourceClaim,
)

_SHARE_NAMESPACE = uuid.UUID("6f1d8c3e-4b1a-5d2e-9c3f-7a8b9c0d1e2f")


def deterministic_share_id(claim: str, request: str, device: DeviceID, n: int) -> str:
    """Upstream draws a random UUID per share; drasim derives one from what the share is, so the
    same inputs give the same IDs: uuid5(claim, request, device, n-th share of it in the claim)."""
    return str(uuid.uuid5(_SHARE_NAMESPACE, f"{claim}\x00{request}\x00{device}\x00{n}"))


def build_result(features: Features, node: Node, claim: ResourceClaim, chosen: list[Chosen],
                 primary: list[RequestData], picked: list[RequestData]) -> AllocationResult:
    """The claim's AllocationResult: its devices in the order chosen, configs, node selector.

    `primary[ri]` is request ri's first alternative (its own data when it has no subrequests) and
    `picked[ri]` the alternative the search settled on.
    """
    f = features
    out: list[DeviceRequestAllocationResult] = []
    for r in chosen:
        dev = r.cand.device
        item = DeviceRequestAllocationResult(
            request=r.req.name, driver=r.cand.id.driver, pool=r.cand.id.pool, device=r.cand.id.device,
            admin_access=True if r.req.admin else None,
            tolerations=[msgspec.structs.replace(t) for t in r.req.tolerations],
            share_id=r.share_id,
            consumed_capacity=dict(r.consumed) if r.consumed else None,
        )
        if f.device_binding_and_status:
            item.binding_conditions = list(dev.binding_conditions)
            item.binding_failure_conditions = list(dev.binding_failure_conditions)
        out.append(item)
    return AllocationResult(
        devices=DeviceAllocationResult(results=out, config=_configs(features, claim, primary, picked)),
        node_selector=_node_selector(node, chosen),
    )


# Per claim of a successful call: (each device taken as (its request alternative, its position in the node's
# candidate list), in the order taken; each request's first alternative; the alternative each settled on).
Recipe = tuple[tuple[tuple[tuple[RequestData, int], ...], tuple[RequestData, ...], tuple[RequestData, ...]], ...]


def rebuild(features: Features, node: Node, view: NodeView, claims: Sequence[ResourceClaim], recipe: Recipe,
            in_use: Container[DeviceID]) -> list[AllocationResult] | None:
    """The claims' results from another node's `Recipe`: the devices at the same positions of this node's
    candidate list, built as the search builds them; None when a position is missing or its device is in use.

    What the recipe keeps of the other call is the same for every node: the request alternatives (data of
    the claims' specs and classes) and positions. Everything node-specific (device names, pools, binding
    conditions, node selector) is read from this node's candidates. `Allocator.last_recipe` gives none for a
    call that took shared devices, whose share IDs and consumed capacity are per device.
    """
    if len(recipe) != len(claims):
        return None
    cands = view.candidates
    out = []
    try:
        for claim, (taken, primary, picked) in zip(claims, recipe, strict=True):
            chosen = []
            for req, pos in taken:
                if pos >= len(cands) or cands[pos].id in in_use:
                    return None
                chosen.append(Chosen(req, cands[pos], None, None))
            out.append(build_result(features, node, claim, chosen, list(primary), list(picked)))
    except AllocationError:
        return None  # the search meets the same error and reports it
    return out


def _configs(features: Features, claim: ResourceClaim, primary: list[RequestData], picked: list[RequestData]
             ) -> list[DeviceAllocationConfiguration]:
    configs: list[DeviceAllocationConfiguration] = []
    class_ranges: dict[str, tuple[int, int]] = {}
    for ri in range(len(claim.spec.devices.requests)):
        data = picked[ri]
        cls = data.cls
        if cls is None:
            continue
        span = class_ranges.get(cls.metadata.name)
        if span is not None:
            for i in range(*span):
                configs[i].requests.append(data.name)
            continue
        first = len(configs)
        for class_cfg in cls.spec.config:
            configs.append(DeviceAllocationConfiguration(source="FromClass", requests=[data.name],
                                                         opaque=class_cfg.opaque))
        class_ranges[cls.metadata.name] = (first, len(configs))
    requests = claim.spec.devices.requests
    newer = releases.clears_config_covering_all_requests(features.release)
    for cfg in claim.spec.devices.config:
        if not cfg.requests:
            configs.append(DeviceAllocationConfiguration(source="FromClaim", requests=[], opaque=cfg.opaque))
            continue
        if newer:  # 1.37 appends a claim config once if it names any request or chosen subrequest
            if any(r.name in cfg.requests or picked[ri].name in cfg.requests
                   for ri, r in enumerate(requests)):
                configs.append(DeviceAllocationConfiguration(
                    source="FromClaim", requests=list(cfg.requests), opaque=cfg.opaque))
            continue
        for ri, request in enumerate(requests):
            if request.name in cfg.requests:
                configs.append(DeviceAllocationConfiguration(
                    source="FromClaim", requests=list(cfg.requests), opaque=cfg.opaque))
                continue
            data = primary[ri]
            if data.parent is None:
                continue
            if picked[ri].name in cfg.requests:
                configs.append(DeviceAllocationConfiguration(
                    source="FromClaim", requests=list(cfg.requests), opaque=cfg.opaque))
    if newer:
        # A config naming every request (directly or through the chosen subrequest) applies to all.
        names = [(r.name, picked[ri].name) for ri, r in enumerate(requests)]
        for config in configs:
            if config.requests and all(a in config.requests or b in config.requests for a, b in names):
                config.requests = []
    return configs


def _node_selector(node: Node, results: list[Chosen]) -> NodeSelector | None:
    fields: list[NodeSelectorRequirement] = []
    exprs: list[NodeSelectorRequirement] = []
    for r in results:
        slc, dev = r.cand.slice, r.cand.device
        if slc.spec.per_device_node_selection:
            node_name, selector = dev.node_name, dev.node_selector
        else:
            node_name, selector = slc.spec.node_name, slc.spec.node_selector
        if node_name is not None or dev.binds_to_node:
            return NodeSelector(node_selector_terms=[NodeSelectorTerm(match_fields=[
                NodeSelectorRequirement(key="metadata.name", operator="In",
                                        values=[node.metadata.name])])])
        if selector is not None:
            terms = selector.node_selector_terms
            if len(terms) > 1:
                raise AllocationError(f"create NodeSelector for claim {r.req.base}: unsupported "
                                      f"ResourceSlice.NodeSelector with {len(terms)} terms")
            if terms:
                _add_new(terms[0].match_fields, fields)
                _add_new(terms[0].match_expressions, exprs)
    if fields or exprs:
        return NodeSelector(node_selector_terms=[NodeSelectorTerm(match_expressions=exprs,
                                                                  match_fields=fields)])
    return None


def _add_new(src: list[NodeSelectorRequirement], dst: list[NodeSelectorRequirement]) -> None:
    for req in src:
        values = set(req.values)
        if not any(d.key == req.key and d.operator == req.operator and set(d.values) == values for d in dst):
            dst.append(msgspec.structs.replace(req, values=list(req.values)))

