"""The kube-scheduler (v1.36 default profile) with the DynamicResources plugin, one pod per cycle."""

from drasim.scheduler.config import SchedulerConfig
from drasim.scheduler.framework import NodeScore, Scheduler, ScheduleResult, num_feasible_nodes_to_find

__all__ = ["NodeScore", "ScheduleResult", "Scheduler", "SchedulerConfig", "num_feasible_nodes_to_find"]
