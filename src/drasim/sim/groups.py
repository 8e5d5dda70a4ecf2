"""PodGroups as groups in the reports: how many of a gang's pods are placed, waiting or pending, and its claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from drasim.api.scheduling import PodGroup, min_count
from drasim.cluster import ClusterState, key_of
from drasim.scheduler.gang import group_pods
from drasim.sim.engine import SimulationResult
from drasim.sim.gang import CONDITION, WAITING

__all__ = ["GroupLine", "group_lines"]


@dataclass
class GroupLine:
    """One PodGroup at the end of a simulation."""

    key: tuple[str, str]
    policy: str  # "gang" | "basic"
    min_count: int
    pods: int  # live pods naming the group
    placed: int
    waiting: int  # assumed in Permit for the gang's quorum
    condition: str = ""  # PodGroupScheduled=False (Unschedulable), or ""
    claims: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (group claim, claim, devices)

    @property
    def complete(self) -> bool:
        return self.placed >= self.min_count

    def line(self) -> str:
        name = f"{self.key[0]}/{self.key[1]}"
        policy = f"gang, minCount {self.min_count}" if self.policy == "gang" else "basic"
        counts = f"{self.placed}/{self.pods} pods placed"
        if self.waiting:
            counts += f", {self.waiting} waiting in Permit"
        pending = self.pods - self.placed - self.waiting
        if pending:
            counts += f", {pending} pending"
        text = f"{name} ({policy}): {counts}"
        if self.condition:
            text += f"; {self.condition}"
        for entry, claim, devices in self.claims:
            text += f"; claim {entry}: {claim or '(not created)'}" + (f" -> {', '.join(devices)}" if devices else "")
        return text


def group_lines(result: SimulationResult) -> list[GroupLine]:
    """Every PodGroup at the end of the run, sorted by namespace and name."""
    state = result.state
    waiting = {k for k, r in result.pods.items() if r.status == WAITING}
    out = []
    for key in sorted(state.pod_groups):
        group = state.pod_groups[key]
        members = group_pods(state, *key)
        placed = sum(1 for k in members if state.pods[k].spec.node_name)
        out.append(GroupLine(key, "gang" if group.spec.scheduling_policy.gang is not None else "basic",
                             min_count(group), len(members), placed, sum(1 for k in members if k in waiting),
                             _condition(group), _claims(state, group)))
    return out


def _condition(group: PodGroup) -> str:
    for cond in group.status.conditions if group.status is not None else []:
        if cond.type == CONDITION:
            return f"{cond.type}={cond.status}" + (f" ({cond.reason})" if cond.reason else "")
    return ""


def _claims(state: ClusterState, group: PodGroup) -> list[tuple[str, str, list[str]]]:
    ns = key_of(group)[0]
    recorded = {s.name: s.resource_claim_name for s in (group.status.resource_claim_statuses if group.status else [])}
    out = []
    for entry in group.spec.resource_claims:
        name = entry.resource_claim_name or recorded.get(entry.name) or ""
        claim = state.claims.get((ns, name)) if name else None
        allocation = claim.status.allocation if claim is not None and claim.status is not None else None
        devices = [f"{r.driver}/{r.pool}/{r.device}" for r in allocation.devices.results] if allocation else []
        out.append((entry.name, name if claim is not None else "", devices))
    return out
