"""Consumable capacity (DRAConsumableCapacity): request policies, rounding and the per-device sum check."""

from __future__ import annotations

from drasim.api.quantity import Quantity
from drasim.api.resource import CapacityRequestPolicy, Device, DeviceCapacity

_ZERO = Quantity.parse("0")


def _round_up(requested: Quantity, policy: CapacityRequestPolicy) -> Quantity:
    rng = policy.valid_range
    if rng is not None and rng.min is not None:
        if requested < rng.min:
            return rng.min
        if rng.step is None:
            return requested
        # Integer (.Value()) arithmetic, result in binary SI, as upstream does.
        lo, step, req = rng.min.value(), rng.step.value(), requested.value()
        if step <= 0:
            return requested
        steps = -(-(req - lo) // step)
        return Quantity.from_int(lo + step * steps, "BinarySI")
    if policy.valid_values is not None:
        for v in policy.valid_values:
            if v >= requested:
                return v
    return requested


def consumed_quantity(requested: Quantity | None, cap: DeviceCapacity) -> Quantity:
    """What one share consumes of a capacity: the request rounded by the policy, or the default."""
    policy = cap.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return cap.value
    if policy is None:
        return requested
    return _round_up(requested, policy)


def _violates(consumed: Quantity, policy: CapacityRequestPolicy | None) -> bool:
    if policy is None:
        return False
    # QUIRK: "equals default" compares the stored representation (Go struct equality), not the value.
    if policy.default is not None and consumed.struct_equal(policy.default):
        return False
    rng = policy.valid_range
    if rng is not None:
        if rng.max is not None and consumed > rng.max:
            return True
        if rng.step is not None and rng.min is not None:
            step = rng.step.value()
            if step and (consumed.value() - rng.min.value()) % step != 0:
                return True
        return False
    if policy.valid_values is not None:
        return consumed not in policy.valid_values
    return False


def fits(requests: dict[str, Quantity] | None, device: Device,
         already: dict[str, Quantity] | None, allocating: dict[str, Quantity] | None) -> bool:
    """Whether the request fits the device's remaining capacity (and its policies)."""
    if not requests and not already and not allocating and all(
            c.request_policy is None for c in device.capacity.values()):
        return True  # each capacity's whole value against itself (the loop below, in short)
    if requests:
        for name in requests:
            if name not in device.capacity:
                return False  # the device lacks a requested capacity: unsuitable, not an error
    for name, cap in device.capacity.items():
        requested = requests.get(name) if requests else None
        consumed = consumed_quantity(requested, cap)
        if _violates(consumed, cap.request_policy):
            return False
        total = consumed
        if already and name in already:
            total = total + already[name]
        if allocating and name in allocating:
            total = total + allocating[name]
        if total > cap.value:
            return False
    return True


def consumed_capacity(requests: dict[str, Quantity] | None, device: Device) -> dict[str, Quantity]:
    """The consumption recorded in a share's result: every capacity of the device, zeros included."""
    return {name: consumed_quantity(requests.get(name) if requests else None, cap)
            for name, cap in sorted(device.capacity.items())}


def add_into(total: dict[str, Quantity], amounts: dict[str, Quantity], sign: int = 1) -> None:
    """total += amounts (or -= with sign -1), in place."""
    for name, q in amounts.items():
        cur = total.get(name, _ZERO)
        total[name] = cur + q if sign > 0 else cur - q
