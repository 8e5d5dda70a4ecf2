"""The in-use state an allocator starts from: exclusively allocated devices, shares, consumed capacity."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from drasim.api.quantity import Quantity
from drasim.api.resource import AllocationResult


class DeviceID(NamedTuple):
    """`<driver>/<pool>/<device>`; the pool name may itself contain `/`."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


@dataclass
class AllocatedState:
    """Upstream `AllocatedState`: what existing allocations (and in-flight ones) hold.

    Admin-access results never appear here; shared (multi-allocatable) results are recorded
    as (device, shareID) plus their consumed capacity instead of as exclusive use.
    """

    devices: set[DeviceID] = field(default_factory=set)
    shared: set[tuple[DeviceID, str]] = field(default_factory=set)
    aggregated_capacity: dict[DeviceID, dict[str, Quantity]] = field(default_factory=dict)

    def is_allocated(self, device: DeviceID) -> bool:
        """Whether the device is in use in any way (exclusive, shared, or with consumed capacity)."""
        if device in self.devices or device in self.aggregated_capacity:
            return True
        return any(d == device for d, _ in self.shared)

    def copy(self) -> AllocatedState:
        """An independent copy (sets and per-device capacity maps copied)."""
        return AllocatedState(devices=set(self.devices), shared=set(self.shared),
                              aggregated_capacity={k: dict(v) for k, v in self.aggregated_capacity.items()})

    def add_allocation(self, allocation: AllocationResult, *, consumable_capacity: bool) -> None:
        """Record one claim's allocation as upstream's bookkeeping does (spec §4.1)."""
        for r in allocation.devices.results:
            if r.admin_access:
                continue  # admin access never makes a device in use
            dev = DeviceID(r.driver, r.pool, r.device)
            if consumable_capacity and r.share_id:
                self.shared.add((dev, r.share_id))
                if r.consumed_capacity:
                    self.add_consumed(dev, r.consumed_capacity)
            else:
                self.devices.add(dev)

    def add_consumed(self, device: DeviceID, consumed: dict[str, Quantity]) -> None:
        """Add one share's consumed capacity to the device's aggregate."""
        total = self.aggregated_capacity.setdefault(device, {})
        for name, q in consumed.items():
            total[name] = total[name] + q if name in total else q
