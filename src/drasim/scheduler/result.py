"""What one scheduling cycle decided (ScheduleResult) and the cycle's outcomes beyond the plugins' codes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from drasim.api.core import NodeAllocatableResourceClaimStatus, Pod, PodExtendedResourceClaimStatus
from drasim.api.resource import AllocationResult, ResourceClaim
from drasim.cluster.state import Key
from drasim.scheduler.filters import UNSCHEDULABLE, Status
from drasim.scheduler.ranking import NodeScore, Ranking

SCHEDULED = "Scheduled"
GATED = "Gated"
ERROR = "Error"


@dataclass(slots=True)  # one per pod: no __dict__ (~200 bytes each)
class ScheduleResult:
    """What one scheduling cycle decided; `Scheduler.apply` writes it into the cluster state."""

    pod: Key
    node: str | None = None
    status: str = UNSCHEDULABLE  # Scheduled | Unschedulable | UnschedulableAndUnresolvable | Error | Gated
    message: str = ""
    allocations: dict[Key, AllocationResult] = field(default_factory=dict)
    extended_claim: ResourceClaim | None = None
    ranking: Ranking | None = None  # the scored feasible nodes (None: no scoring ran)
    # The nodes the scan rejected (also when scheduled), with why; may be shared between results: read only.
    node_statuses: Mapping[str, Status] = field(default_factory=dict)
    deallocate: list[Key] = field(default_factory=list)
    no_preemption: bool = False
    chosen_subrequests: dict[Key, list[str]] = field(default_factory=dict)
    delete_claims: list[Key] = field(default_factory=list)  # PostFilter: a stale extended-resource claim
    extended_status: PodExtendedResourceClaimStatus | None = None
    binding_wait: bool = False  # PreBind waits for devices' binding conditions: apply does not bind yet
    # status.nodeAllocatableResourceClaimStatuses PreBind writes (DRANodeAllocatableResources)
    node_allocatable: list[NodeAllocatableResourceClaimStatus] = field(default_factory=list)
    permit_wait: bool = False  # Permit (GangScheduling) waits for the gang's quorum: apply does not bind yet
    pod_object: Pod | None = field(default=None, repr=False, compare=False)

    @property
    def scores(self) -> list[NodeScore]:
        """The feasible nodes' scores, best first (equal totals in scan order); [] when no scoring ran."""
        return self.ranking.nodes() if self.ranking is not None else []

    def top_scores(self, k: int) -> list[NodeScore]:
        """The first `k` of `scores`."""
        return self.ranking.top(k) if self.ranking is not None else []

    @property
    def node_reasons(self) -> dict[str, str]:
        """Per rejected node, its reasons as the FitError lists them."""
        return {n: st.message for n, st in self.node_statuses.items()}

    def compact(self, scores_kept: int) -> None:
        """Keep what a finished cycle is still asked for: the top `scores_kept` scores and, when the pod
        stays unscheduled, the rejected nodes (a simulation keeps one result per pod)."""
        if self.ranking is not None:
            self.ranking = self.ranking.truncated(scores_kept)
        if self.node is not None:
            self.node_statuses = {}
