"""Scheduler settings: the seeded tie-break, node sampling, and the DRA knobs of the default profile."""

from __future__ import annotations

from dataclasses import dataclass

from drasim.allocator.budget import FILTER_BUDGET_STEPS


@dataclass(frozen=True)
class SchedulerConfig:
    """kube-scheduler v1.36 default profile, with drasim's deterministic tie-break seed."""

    seed: int = 0  # seeds the documented tie-break among top-scored nodes and generated names
    score_all_nodes: bool = False  # disables numFeasibleNodesToFind sampling
    percentage_of_nodes_to_score: int = 0  # 0 = adaptive (scheduler-core §6)
    extended_resources: bool = True  # DRAExtendedResource (beta, on in 1.36)
    binding_timeout_seconds: int = 600  # DynamicResourcesArgs.bindingTimeout
    # DynamicResourcesArgs.filterTimeout (10 s) as a deterministic allocator step budget; None: no limit.
    filter_budget_steps: int | None = FILTER_BUDGET_STEPS
    gang_scheduling: bool = False  # the GangScheduling plugin (gate GangScheduling, alpha): PodGroup gangs
