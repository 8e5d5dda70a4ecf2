"""Lint rules for DeviceTaintRules: blast radius of empty or missing selectors, unrehearsed NoExecute."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from drasim.api import resource as r
from drasim.controllers.devicetaint import selected_devices
from drasim.lint.base import LintContext, LintFinding, ref_of

__all__ = ["BlastRadius", "blast_radius", "check_taint_rules"]


@dataclass(frozen=True, slots=True)
class BlastRadius:
    """What a rule's selector reaches in the cluster as simulate leaves the inputs."""

    published: int  # devices in current slices
    allocated: int  # allocation results naming a selected device
    claims: int  # allocated claims with at least one selected device
    pods: int  # pods those claims list in reservedFor (pods NoExecute would evict)
    namespaces: int  # namespaces of those pods

    def describe(self, effect: str) -> str:
        published = _n(self.published, "published device")
        allocated = _n(self.allocated, "allocated device")
        pods = f"{_n(self.pods, 'pod')} in {_n(self.namespaces, 'namespace')}"
        if effect == "NoExecute":
            return f"it selects {published} and {allocated}; {pods} would be evicted"
        if effect == "NoSchedule":
            return (f"it selects {published} and {allocated}; new allocations avoid every selected device "
                    f"({pods} keep theirs)")
        return f"it selects {published} and {allocated}; as NoExecute it would evict {pods}"


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def blast_radius(ctx: LintContext, rule: r.DeviceTaintRule) -> BlastRadius:
    """Published devices, allocated devices, claims and pods the rule's selector reaches in the cluster as
    `drasim simulate` leaves the inputs (`LintContext.cluster`), selected as the eviction controller
    selects. Pods are the `reservedFor` entries of allocated claims holding a selected device: the pods a
    NoExecute taint would evict (tolerations are not considered)."""
    published, allocated = selected_devices(ctx.cluster(), rule)
    claims: dict[tuple[str, str], r.ResourceClaim] = {}
    for claim, _ in allocated:
        claims.setdefault((claim.metadata.namespace or "default", claim.metadata.name), claim)
    pods = {(ns, ref.name) for (ns, _), claim in claims.items() if claim.status is not None
            for ref in claim.status.reserved_for if ref.resource == "pods" and not ref.api_group}
    return BlastRadius(len(published), len(allocated), len(claims), len(pods), len({ns for ns, _ in pods}))


def _select_all(rule: r.DeviceTaintRule) -> r.DeviceTaintRule:
    """The rule with an empty selector (`{}`: every device), to count what "everything" is."""
    return msgspec.structs.replace(rule, spec=msgspec.structs.replace(
        rule.spec, device_selector=r.DeviceTaintSelector()))


def _selector_key(sel: r.DeviceTaintSelector | None) -> tuple[str | None, ...] | None:
    return None if sel is None else (sel.driver, sel.pool, sel.device)


def _rehearsed(rule: r.DeviceTaintRule, rules: list[r.DeviceTaintRule]) -> bool:
    """A NoExecute rule counts as rehearsed when its status still shows the `None` dry run's report, or
    when a `None` rule with the same selector and taint key is among the objects."""
    status = rule.status.conditions if rule.status is not None else []
    if any(c.type == "EvictionInProgress" and c.reason == "NoEffect" for c in status):
        return True
    key = _selector_key(rule.spec.device_selector)
    return any(
        other is not rule and other.spec.taint.effect == "None" and other.spec.taint.key == rule.spec.taint.key
        and _selector_key(other.spec.device_selector) == key
        for other in rules
    )


def check_taint_rules(ctx: LintContext) -> list[LintFinding]:
    """taint-rule-selects-all, taint-rule-no-selector and taint-rule-unrehearsed-noexecute."""
    out: list[LintFinding] = []
    for rule in ctx.taint_rules:
        ref = ref_of(rule)
        sel = rule.spec.device_selector
        effect = rule.spec.taint.effect
        if sel is not None and sel.driver is None and sel.pool is None and sel.device is None:
            radius = blast_radius(ctx, rule)
            # None only reports; NoSchedule/NoExecute (and unknown effects, which act like None) bite.
            severity = "error" if effect in ("NoExecute", "NoSchedule") else "warning"
            out.append(LintFinding(
                "taint-rule-selects-all", severity, ref, "spec.deviceSelector",
                f"an empty deviceSelector {{}} taints every device of every driver in the cluster "
                f"(effect {effect or 'unset'}): {radius.describe(effect)}. Name the driver, pool or "
                "device to taint",
            ))
        elif sel is None:
            everything = _n(blast_radius(ctx, _select_all(rule)).published, "published device")
            if effect in ("NoExecute", "NoSchedule"):
                impact = f"so new allocations may avoid all {everything} here while nothing is evicted"
            else:
                impact = f"which matters once the effect becomes NoSchedule or NoExecute ({everything} here)"
            out.append(LintFinding(
                "taint-rule-no-selector", "warning", ref, "spec",
                "no deviceSelector: the API documents this as tainting no device (the eviction controller "
                "agrees), but the 1.36 scheduler's slice tracker treated it as every device, "
                f"{impact}. Set deviceSelector explicitly",
            ))
        if effect == "NoExecute" and not _rehearsed(rule, ctx.taint_rules):
            radius = blast_radius(ctx, rule)
            out.append(LintFinding(
                "taint-rule-unrehearsed-noexecute", "warning", ref, "spec.taint.effect",
                f"NoExecute evicts immediately ({radius.describe(effect)} in the simulated cluster); "
                "rehearse with effect None first; drasim taint dry-run shows what it would evict",
            ))
    return out
