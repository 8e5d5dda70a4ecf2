"""The structured allocator: given a node, slices, classes and in-use devices, allocate a pod's claims."""

from drasim.allocator.errors import AllocationError, NodeLocalError
from drasim.allocator.features import Features
from drasim.allocator.search import AllocateStats, Allocator
from drasim.allocator.state import AllocatedState, DeviceID

__all__ = [
    "AllocateStats",
    "AllocatedState",
    "AllocationError",
    "Allocator",
    "DeviceID",
    "Features",
    "NodeLocalError",
]
