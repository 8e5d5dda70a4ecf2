"""Named hints for the DRA traps users hit: MIG off, missing attributes, pool slice counts, preemption, replicas."""

from __future__ import annotations

import re
from collections.abc import Sequence

from drasim.allocator.constraints import lookup_attribute
from drasim.api.claims import claim_ref
from drasim.api.core import Pod
from drasim.api.resource import Device, ResourceClaim
from drasim.cluster.state import ClusterState
from drasim.explain.context import Alternative, Context
from drasim.explain.model import Hint, NodeGroup
from drasim.explain.probe import NodeFacts
from drasim.scheduler.backing import unbacked_extended

POD_CLAIM_ANNOTATION = "resource.kubernetes.io/pod-claim-name"

MIG_OFF = ("MIG mode is off or not configured on these GPUs; the driver advertises full GPUs only")
NO_PREEMPTION = "preemption will not help: the scheduler does not preempt for DRA devices"


def node_hints(ctx: Context, nd: NodeFacts, group: NodeGroup) -> list[Hint]:
    """Hints that depend on one node's devices and verdict."""
    out: list[Hint] = []
    out += _mig_off(ctx, nd, group)
    out += _cel_errors(group)
    out += _pools(group)
    out += _taints(group)
    out += _all_mode(ctx, nd, group)
    out += _shared_devices(ctx, nd, group)
    out += _preemption(ctx, nd, group)
    return out


# --- an All-mode request taking what another one needs ---------------------------------------------------


def _all_mode(ctx: Context, nd: NodeFacts, group: NodeGroup) -> list[Hint]:
    """Each request fits alone, but an `allocationMode: All` request of the same Allocate call (the same pod)
    takes every device it matches, some of which another request needs: name the taker."""
    if group.verdict.status != "unsatisfiable":
        return []
    alts = [alt for alts_of_claim in ctx.alts for alts in alts_of_claim for alt in alts if alt.problem is None]
    out: list[Hint] = []
    for taker in alts:
        if taker.mode != "All":
            continue
        taken = {c.id for c in nd.usable_by_alt.get((taker.ci, taker.name), ())}
        if not taken:
            continue
        for other in alts:
            if other is taker or (other.ci == taker.ci and other.base == taker.base):
                continue
            usable = [c.id for c in nd.usable_by_alt.get((other.ci, other.name), ())]
            needed = (len(usable) or 1) if other.mode == "All" else (getattr(other.request, "count", None) or 1)
            left = sum(1 for d in usable if d not in taken)
            if len(usable) < needed or left >= needed:
                continue  # short anyway (the counts say so), or the All request leaves it enough
            whose = "the same claim" if other.ci == taker.ci else f"claim {claim_ref(taker.claim)}"
            out.append(Hint("all-mode-takes-devices", (
                f"request {taker.name} of {whose} has allocationMode All: it takes every one of the {len(taken)} "
                f"device(s) it matches, including {len(usable) - left} of the {len(usable)} that request "
                f"{other.name} of claim {claim_ref(other.claim)} could use, which then has {left} left and needs "
                f"{needed}. Each fits alone; together they do not. Narrow the All request's selectors (or use "
                "ExactCount), or give the other request devices the All request does not match."),
                [claim_ref(taker.claim)]))
    return out


def _shared_devices(ctx: Context, nd: NodeFacts, group: NodeGroup) -> list[Hint]:
    """Two ExactCount requests of the pod's claims, each fitting alone, that draw on the same devices: fewer
    devices suit either than the two counts together (a device goes to one request), so the call fails."""
    if group.verdict.status != "unsatisfiable":
        return []
    # firstAvailable requests could take another alternative, All requests have their own hint, adminAccess
    # requests take nothing from others: only plain ExactCount requests make this count a proof.
    plain = [alts[0] for alts_of_claim in ctx.alts for alts in alts_of_claim
             if len(alts) == 1 and not alts[0].sub and alts[0].problem is None and alts[0].mode != "All"
             and not alts[0].admin]
    usable = {(a.ci, a.name): nd.usable_by_alt.get((a.ci, a.name), []) for a in plain}
    if any(c.device.allow_multiple_allocations for cands in usable.values() for c in cands):
        return []  # shareable devices (consumable capacity): one device may serve both
    out: list[Hint] = []
    for i, a in enumerate(plain):
        ua = {c.id for c in usable[(a.ci, a.name)]}
        na = getattr(a.request, "count", None) or 1
        for b in plain[i + 1:]:
            ub = {c.id for c in usable[(b.ci, b.name)]}
            nb = getattr(b.request, "count", None) or 1
            if len(ua) < na or len(ub) < nb or len(ua | ub) >= na + nb:
                continue  # short anyway (the counts say so), or enough devices for both
            whose = "the same claim" if a.ci == b.ci else f"claim {claim_ref(a.claim)}"
            out.append(Hint("claims-share-devices", (
                f"request {b.name} of claim {claim_ref(b.claim)} needs {nb} device(s) and request {a.name} of "
                f"{whose} needs {na}, from the same devices: {len(ua & ub)} suit both, {len(ua | ub)} suit "
                f"either, fewer than the {na + nb} they need together (a device goes to one request). Each fits "
                "alone; together they do not. Give one of them devices the other does not match (a selector), "
                "or lower a count.")))
    return out


def _taints(group: NodeGroup) -> list[Hint]:
    if group.verdict.status == "allocated":
        return []
    out: list[Hint] = []
    for claim in group.claims:
        for req in claim.requests:
            for alt in req.alternatives:
                for rc in alt.excluded:
                    if rc.reason != "taint":
                        continue
                    out.append(Hint("untolerated-taint", (
                        f"{rc.count} device(s) for {alt.name} carry {rc.detail}, which the request does not "
                        "tolerate. If it may use them, add a matching toleration to the request "
                        "(spec.devices.requests[].exactly.tolerations or the firstAvailable entry).")))
    return out


# --- MIG ---------------------------------------------------------------------------------------

_MIG_WORD = re.compile(r"(?<![a-z0-9])mig(?![a-z0-9])", re.IGNORECASE)


def _attr(dev: Device, driver: str, name: str) -> str | None:
    attr = lookup_attribute(dev, driver, f"{driver}/{name}")
    return attr.string if attr is not None else None


def _is_mig(dev: Device, driver: str) -> bool:
    return (_attr(dev, driver, "type") == "mig" or lookup_attribute(dev, driver, f"{driver}/parentUUID") is not None
            or lookup_attribute(dev, driver, f"{driver}/profile") is not None)


def _is_full_gpu(dev: Device, driver: str) -> bool:
    return _attr(dev, driver, "type") == "gpu"


def _asks_for_mig(alt: Alternative) -> bool:
    texts = [alt.request.device_class_name]
    if alt.cls is not None:
        texts += [s.cel.expression for s in alt.cls.spec.selectors if s.cel is not None]
    texts += [s.cel.expression for s in alt.request.selectors if s.cel is not None]
    return any(_MIG_WORD.search(t) for t in texts)


def _mig_off(ctx: Context, nd: NodeFacts, group: NodeGroup) -> list[Hint]:
    if group.verdict.status == "allocated":
        return []
    # The claims first: they rarely ask for MIG, and the node's devices are many (fleets: per node).
    asking = [alt for alts_of_claim in ctx.alts for alts in alts_of_claim for alt in alts
              if alt.problem is None and _asks_for_mig(alt)
              and not nd.usable_by_alt.get((alt.ci, alt.name))]
    if not asking:
        return []
    cands = nd.view.candidates
    if any(_is_mig(c.device, c.id.driver) for c in cands):
        return []
    gpus = sum(1 for c in cands if _is_full_gpu(c.device, c.id.driver))
    if not gpus:
        return []
    names = ", ".join(f"{a.name} (class {a.request.device_class_name})" for a in asking)
    verb = "asks" if len(asking) == 1 else "ask"
    return [Hint("mig-disabled", f"{MIG_OFF}: {names} {verb} for MIG devices, but the node publishes {gpus} full "
                                 "GPU(s) and no MIG devices. Enable MIG on the node (or dynamic MIG in the driver), "
                                 "or request full GPUs.")]


# --- CEL errors --------------------------------------------------------------------------------

_NO_SUCH_KEY = re.compile(
    r"^(class \S+|claim \S+): selector #(\d+)(?: on device \S+)?: CEL runtime error: no such key: (\w+)")


def _cel_errors(group: NodeGroup) -> list[Hint]:
    out: list[Hint] = []
    seen: set[str] = set()
    allocated = group.verdict.status == "allocated"
    for claim in group.claims:
        for req in claim.requests:
            for alt in req.alternatives:
                for rc in alt.excluded:
                    if rc.reason != "cel-error" or rc.detail in seen:
                        continue
                    seen.add(rc.detail)
                    drivers = sorted({e.split("/", 1)[0] for e in rc.examples})
                    m = _NO_SUCH_KEY.match(rc.detail)
                    if m:
                        who, index, key = m.groups()
                        kind = "class selector" if who.startswith("class") else "request selector"
                        msg = (f"no such key: {key}: the {kind} #{index} of {who} reads attribute '{key}', which "
                               f"{rc.count} device(s) of driver {', '.join(drivers)} here do not publish. Check "
                               f"that the driver publishes '{key}' (driver version, configuration), or guard the "
                               f"expression with has(...) or .?{key}.orValue(...).")
                        if allocated:
                            msg += (" This allocation succeeded only because the search found devices before "
                                    "reaching those.")
                        out.append(Hint("missing-attribute", msg))
                    elif allocated:
                        out.append(Hint("latent-cel-error", (
                            f"{rc.count} device(s) make a selector fail ({rc.detail}); this allocation "
                            "succeeded only because the search found devices before reaching them. Once those "
                            "are taken, the allocation fails with this error.")))
    return out


# --- pools -------------------------------------------------------------------------------------


def _pools(group: NodeGroup) -> list[Hint]:
    out: list[Hint] = []
    for pool in group.pools:
        if pool.state == "incomplete":
            more = " (more than declared)" if (pool.slices_present or 0) > (pool.slice_count or 0) else ""
            out.append(Hint("pool-slice-count", (
                f"pool {pool.pool} declares resourceSliceCount {pool.slice_count}, but {pool.slices_present} "
                f"slice(s) of generation {pool.generation} exist{more}. Until they match, the scheduler treats the "
                "pool as being updated: none of its devices is allocated, and requests for all devices fail. "
                "Publish the missing slices or fix resourceSliceCount in the driver.")))
        elif pool.state == "invalid":
            out.append(Hint("pool-invalid", (
                f"pool {pool.pool} is invalid ({pool.detail}): the allocator skips it, and a claim that finds "
                "no devices elsewhere fails with \"invalid resource pools were encountered\".")))
        elif pool.state == "obsolete":
            out.append(Hint("pool-obsolete", (
                f"pool {pool.pool}: this node sees generation {pool.generation}, but generation "
                f"{pool.newest_generation} exists; the allocator ignores the pool until the driver has "
                "republished it for this node.")))
    return out


# --- preemption --------------------------------------------------------------------------------


def _preemption(ctx: Context, nd: NodeFacts, group: NodeGroup) -> list[Hint]:
    if group.verdict.status != "unsatisfiable" or not nd.probe.fits_when_free:
        return []
    return [Hint("no-preemption", (
        f"{NO_PREEMPTION}. With nothing allocated the claim(s) would fit on this node; other claims hold the "
        "devices or shared counters they need. Free them, or add devices."), sorted(nd.holders_seen))]


# --- replicas ----------------------------------------------------------------------------------


def _controller(refs: Sequence[object]) -> object | None:
    for ref in refs:
        if getattr(ref, "controller", None):
            return ref
    return None


def _pods_by_claim(state: ClusterState) -> dict[tuple[str, str], tuple[Pod, str]]:
    out: dict[tuple[str, str], tuple[Pod, str]] = {}
    for pod in state.pods.values():
        ns = pod.metadata.namespace or "default"
        for pod_claim, claim in state.pod_claims(pod):
            if claim is not None:
                out.setdefault((ns, claim.metadata.name), (pod, pod_claim))
    return out


def _workload(state: ClusterState, claim: ResourceClaim, index: dict[tuple[str, str], tuple[Pod, str]]
              ) -> str | None:
    """What makes replicas of one workload: the template a claim came from, or the pods' controller."""
    ns = claim.metadata.namespace or "default"
    found = index.get((ns, claim.metadata.name))
    if found is None:
        owner = _controller(claim.metadata.owner_references)
        pod_claim = claim.metadata.annotations.get(POD_CLAIM_ANNOTATION)
        pod = state.pods.get((ns, getattr(owner, "name", ""))) if owner is not None else None
        if pod is None or pod_claim is None:
            return None
        found = (pod, pod_claim)
    pod, pod_claim = found
    for entry in pod.spec.resource_claims:
        if entry.name == pod_claim and entry.resource_claim_template_name:
            return f"ResourceClaimTemplate {ns}/{entry.resource_claim_template_name}"
    owner = _controller(pod.metadata.owner_references)
    if owner is not None:
        return f"{getattr(owner, 'kind', '')} {ns}/{getattr(owner, 'name', '')} (pod claim {pod_claim})"
    return None


def unbacked_hints(state: ClusterState, pod: Pod) -> list[Hint]:
    """Extended resources the pod requests that nothing backs (no node advertises, no DeviceClass maps)."""
    if not state.nodes:
        return []
    out = []
    for path, name in unbacked_extended(pod.spec, state.nodes.values(), state.classes):
        out.append(Hint("extended-resource-unbacked", (
            f"spec.{path}: no node advertises extended resource {name} and no DeviceClass maps it with "
            f"extendedResourceName, so \"Insufficient {name}\" cannot change by waiting. Install the device "
            f"plugin that advertises it, or create a DeviceClass with extendedResourceName: {name}.")))
    return out


def replica_hints(state: ClusterState, claims: Sequence[ResourceClaim], pod: Pod | None = None) -> list[Hint]:
    """Replicas of the claims' workload whose allocations used different `firstAvailable` alternatives."""
    del pod  # the claims carry their pod through ownerReferences / the pods' status
    index = _pods_by_claim(state)
    out: list[Hint] = []
    done: set[str] = set()
    for claim in claims:
        workload = _workload(state, claim, index)
        if workload is None or workload in done:
            continue
        done.add(workload)
        chosen: dict[str, dict[str, list[str]]] = {}
        for other in state.claims.values():
            alloc = other.status.allocation if other.status is not None else None
            if alloc is None or _workload(state, other, index) != workload:
                continue
            for r in alloc.devices.results:
                base, _, sub = r.request.partition("/")
                if sub:
                    refs = chosen.setdefault(base, {}).setdefault(sub, [])
                    if claim_ref(other) not in refs:
                        refs.append(claim_ref(other))
        for base, subs in sorted(chosen.items()):
            if len(subs) < 2:
                continue
            parts = [f"{base}/{sub} x{len(refs)} ({', '.join(refs[:3])}{', ...' if len(refs) > 3 else ''})"
                     for sub, refs in sorted(subs.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
            out.append(Hint("replicas-differ", (
                f"replicas of {workload} got different alternatives for request {base}: {'; '.join(parts)}. "
                "The allocator takes the first alternative that fits on the node being tried; nothing keeps "
                "replicas alike. Use a single alternative, or node affinity that only admits one kind of node.")))
    return out
