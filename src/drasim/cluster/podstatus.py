"""Pod conditions as apimachinery's UpdatePodCondition writes them (one entry per type)."""

from __future__ import annotations

from datetime import datetime

from drasim.api.core import Pod, PodCondition, PodStatus

POD_SCHEDULED = "PodScheduled"
DISRUPTION_TARGET = "DisruptionTarget"
REASON_UNSCHEDULABLE = "Unschedulable"  # v1.PodReasonUnschedulable
REASON_SCHEDULER_ERROR = "SchedulerError"  # v1.PodReasonSchedulerError


def update_pod_condition(pod: Pod, type_: str, status: str, now: datetime, reason: str | None = None,
                         message: str | None = None) -> bool:
    """Set the condition; `lastTransitionTime` moves only when the status changes. Whether anything changed."""
    if pod.status is None:
        pod.status = PodStatus()
    conditions = pod.status.conditions
    for i, old in enumerate(conditions):
        if old.type != type_:
            continue
        since = old.last_transition_time if old.status == status else now
        new = PodCondition(type=type_, status=status, last_transition_time=since, reason=reason, message=message)
        if (old.status, old.reason, old.message, old.last_transition_time) == (status, reason, message, since):
            return False
        conditions[i] = new
        return True
    pod.status.conditions = [*conditions, PodCondition(type=type_, status=status, last_transition_time=now,
                                                        reason=reason, message=message)]
    return True


def pod_condition(pod: Pod, type_: str) -> PodCondition | None:
    """The pod's condition of that type, if any."""
    if pod.status is None:
        return None
    return next((c for c in pod.status.conditions if c.type == type_), None)
