"""One request alternative as the search sees it (upstream `requestData`), the checks before its
devices are looked at, and a device chosen for it."""

from __future__ import annotations

from dataclasses import dataclass

from drasim.allocator.cache import Candidate
from drasim.allocator.checks import Rejection
from drasim.allocator.errors import AllocationError
from drasim.allocator.features import Features
from drasim.api.quantity import Quantity
from drasim.api.resource import (
    DeviceClass,
    DeviceRequest,
    DeviceSelector,
    DeviceSubRequest,
    ExactDeviceRequest,
)

UNKNOWN = Rejection("")  # not looked at yet (None means selectable)


class RequestData:
    """Upstream `requestData`: one request without subrequests, or one subrequest."""

    __slots__ = ("admin", "all_devices", "base", "capacity", "cls", "mode", "name", "num", "parent",
                 "request", "selected", "selectors", "shape", "sub", "tolerations", "usable", "verdicts")

    def __init__(self, request: ExactDeviceRequest | DeviceSubRequest, parent: DeviceRequest | None,
                 base: str, sub: str) -> None:
        self.request = request
        self.parent = parent
        self.base = base
        self.sub = sub
        self.name = f"{base}/{sub}" if sub else base
        self.admin = bool(getattr(request, "admin_access", None))
        self.tolerations = request.tolerations
        self.capacity = request.capacity.requests if request.capacity is not None else None
        self.selectors: list[DeviceSelector] = request.selectors
        self.cls: DeviceClass | None = None
        self.mode = request.allocation_mode or ""
        self.num = 0
        self.all_devices: list[Candidate] | None = None
        self.selected = 0
        # Set by `allocator.search`: what the node view knows of this request's devices.
        self.verdicts: list[Rejection | None] = []
        self.shape: tuple[object, ...] = ()
        self.usable: list[int] | None = None


@dataclass
class Chosen:
    """A device the search took for a request (with its share and consumed capacity, when shared)."""

    req: RequestData
    cand: Candidate
    share_id: str | None
    consumed: dict[str, Quantity] | None


def check_request(features: Features, ref: str, request: DeviceRequest) -> None:
    """Features a request needs, before its alternatives are prepared."""
    subs = request.first_available or []
    if subs and not features.prioritized_list:
        raise AllocationError(
            f"claim {ref}, request {request.name}: has subrequests, but the DRAPrioritizedList "
            "feature is disabled")
    if not features.consumable_capacity:
        if request.exactly is not None and request.exactly.capacity is not None:
            raise AllocationError(
                f"claim {ref}, request {request.name}: has capacity requests, but the "
                "DRAConsumableCapacity feature is disabled")
        for sub in subs:
            if sub.capacity is not None:
                raise AllocationError(
                    f"claim {ref}, subrequest {sub.name}: has capacity requests, but the "
                    "DRAConsumableCapacity feature is disabled")


def alternatives(request: DeviceRequest) -> list[RequestData]:
    """The request itself, or its subrequests in order (firstAvailable)."""
    subs = request.first_available or []
    if subs:
        return [RequestData(sub, request, request.name, sub.name) for sub in subs]
    exact = request.exactly if request.exactly is not None else ExactDeviceRequest()
    return [RequestData(exact, None, request.name, "")]
