"""Gang pods waiting in Permit (GangScheduling): released together at the quorum, rejected at the timeout.

Upstream (pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go, Permit): a pod of a gang that passed
Reserve waits, assumed on its node with its devices held, until minCount pods of its PodGroup are assumed or
bound; then every waiting pod of the group binds. A wait that outlives PERMIT_TIMEOUT is rejected by the
framework: Unreserve (the pod leaves the claims' reservedFor; allocations made for it in that cycle were never
written, so they go) and the pod returns to the queue. drasim's queue retries it at the next pass.

The PodGroup's `PodGroupScheduled` condition (staging/src/k8s.io/api/scheduling/v1alpha2/types.go: True with
reason `Scheduled` once the required pods are placed, False with `Unschedulable`) is written by drasim at the
quorum and at the timeout, where the scheduler's group cycle would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from drasim.api.core import Pod
from drasim.api.meta import Condition
from drasim.api.scheduling import PodGroup, PodGroupStatus, min_count
from drasim.cluster import ClusterState, Key, key_of
from drasim.cluster.clock import later
from drasim.cluster.podgroups import reserved_for_group
from drasim.scheduler import Scheduler, ScheduleResult
from drasim.scheduler.gang import (
    PERMIT_TIMEOUT,
    WAITING_FOR_QUORUM,
    MemberCache,
    gang_of,
    group_pods,
    timeout_message,
)

__all__ = ["WAITING", "GangWaits", "PermitWait"]

CONDITION = "PodGroupScheduled"
WAITING = "Waiting"  # PodRecord.status of a pod in Permit


@dataclass
class PermitWait:
    """A gang pod in Permit: where it is assumed, since when, and the cycle that put it there."""

    node: str
    started: datetime
    result: ScheduleResult
    group: Key

    @property
    def deadline(self) -> datetime:
        return later(self.started, PERMIT_TIMEOUT)


@dataclass
class GangWaits:
    """Every pod waiting in Permit, by pod key."""

    waiting: dict[Key, PermitWait] = field(default_factory=dict)
    _by_group: dict[Key, set[Key]] = field(default_factory=dict)  # the keys of `waiting`, per PodGroup
    _placed_memo: dict[Key, int] = field(default_factory=dict)  # `_placed` per group, for one pass

    def gang(self, state: ClusterState, pod: Pod) -> PodGroup | None:
        """The pod's gang PodGroup (None: Permit lets it through at once)."""
        return gang_of(state, pod) if state.pod_groups else None

    def permit(self, state: ClusterState, group: PodGroup, key: Key, result: ScheduleResult,
               others: set[Key], members: MemberCache | None = None) -> list[Key]:
        """Permit for a pod the cycle placed (`result`, applied with `permit_wait`): the pods to bind now, this
        one and every waiting pod of its group, once minCount of them are assumed or bound; else [] and the
        pod waits. `others` are pods of the group assumed elsewhere (PreBind) that count as scheduled;
        `members`: the pass's cache of group members (the scheduler's)."""
        gkey = key_of(group)
        assert result.node is not None
        self.waiting[key] = PermitWait(result.node, state.now, result, gkey)
        waiting = self._by_group.setdefault(gkey, set())
        waiting.add(key)
        if len(waiting) < min_count(group):  # else no need to count: waiting pods alone are the quorum
            scheduled = len(waiting) + self._placed(state, gkey, others, members)
            if scheduled < min_count(group):
                return []
        released = sorted(waiting)
        for k in released:
            del self.waiting[k]
        del self._by_group[gkey]
        self._placed_memo.pop(gkey, None)  # the released pods are bound (or in PreBind) now
        _condition(state, group, "True", "Scheduled", "")
        return released

    def _placed(self, state: ClusterState, gkey: Key, others: set[Key], members: MemberCache | None) -> int:
        """Members of the group bound or in PreBind (not waiting in Permit): counted once per pass with a cache,
        since within a pass only Permit's releases bind pods of a group, and those were waiting."""
        if members is not None and gkey in self._placed_memo:
            return self._placed_memo[gkey]
        count = sum(1 for k in group_pods(state, *gkey, members)
                    if k not in self.waiting and (k in others or state.pods[k].spec.node_name))
        if members is not None:
            self._placed_memo[gkey] = count
        return count

    def new_pass(self) -> None:
        """Forget what `_placed` counted (bindings outside Permit happen between passes)."""
        self._placed_memo.clear()

    def message(self, key: Key) -> str:
        wait = self.waiting[key]
        return (f"Permit (since {wait.started.isoformat()}) waits until {wait.deadline.isoformat()} on node "
                f"{wait.node}: {WAITING_FOR_QUORUM}")

    def expire(self, state: ClusterState, scheduler: Scheduler) -> list[tuple[Key, str]]:
        """Reject every wait past its timeout (Unreserve): [(pod, message)]."""
        out: list[tuple[Key, str]] = []
        for key, wait in sorted(self.waiting.items()):
            pod = state.pods.get(key)
            if pod is not None and pod.metadata.deletion_timestamp is None and wait.deadline > state.now:
                continue
            del self.waiting[key]
            self._forget(wait.group, key)
            if pod is None:
                scheduler.forget(state, key)
                continue
            scheduler.unreserve(state, pod)
            self._release(state, wait)
            group = state.pod_groups.get(wait.group)
            if group is not None:
                _condition(state, group, "False", "Unschedulable", timeout_message())
            out.append((key, timeout_message()))
        return out

    def _release(self, state: ClusterState, wait: PermitWait) -> None:
        """The allocations the rejected pod's cycle made were never written: a claim held by nobody else (no
        pod in reservedFor; its group's entry only while no pod of the group is assumed or bound) loses it."""
        group = state.pod_groups.get(wait.group)
        holders = set(self._by_group.get(wait.group, ()))  # the group's pods still waiting
        if group is not None:
            holders |= {k for k in group_pods(state, *wait.group) if state.pods[k].spec.node_name}
        for ckey in wait.result.allocations:
            claim = state.claims.get(ckey)
            if claim is None or claim.status is None or claim.status.allocation is None:
                continue
            pods = [r for r in claim.status.reserved_for if r.resource == "pods" and not r.api_group]
            if pods or (group is not None and reserved_for_group(claim, group) and holders):
                continue
            claim.status.reserved_for = []
            state.set_allocation(ckey, None)

    def _forget(self, gkey: Key, key: Key) -> None:
        keys = self._by_group.get(gkey)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_group[gkey]

    def claims(self) -> set[Key]:
        """The claims allocated in the cycles of the pods waiting now."""
        return {ckey for wait in self.waiting.values() for ckey in wait.result.allocations}

    def next_time(self) -> datetime | None:
        return min((w.deadline for w in self.waiting.values()), default=None)


def _condition(state: ClusterState, group: PodGroup, status: str, reason: str, message: str) -> None:
    if group.status is None:
        group.status = PodGroupStatus()
    conditions = group.status.conditions
    for i, cond in enumerate(conditions):
        if cond.type == CONDITION:
            if (cond.status, cond.reason, cond.message or "") != (status, reason, message):
                changed = cond.status != status
                conditions[i] = Condition(type=CONDITION, status=status, reason=reason, message=message or None,
                                          last_transition_time=state.now if changed else cond.last_transition_time)
            return
    conditions.append(Condition(type=CONDITION, status=status, reason=reason, message=message or None,
                                last_transition_time=state.now))
