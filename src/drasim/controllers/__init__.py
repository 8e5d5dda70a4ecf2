"""Controllers of kube-controller-manager that DRA depends on: ResourceClaim and device-taint eviction."""

from drasim.controllers import devicetaint, resourceclaim
from drasim.controllers.devicetaint import EvictionTracker, evict_due, next_eviction_time, rule_status
from drasim.controllers.events import Event

__all__ = ["Event", "EvictionTracker", "devicetaint", "evict_due", "next_eviction_time", "resourceclaim",
           "rule_status"]
