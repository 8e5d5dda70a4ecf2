"""Consumable capacity: a device capacity's requestPolicy (validValues or validRange, default, step)."""

from __future__ import annotations

from collections.abc import Sequence

from drasim.api import resource as r
from drasim.api.limits import CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS
from drasim.api.quantity import Quantity
from drasim.validation.checker import Checker
from drasim.validation.paths import child, index

_INT64_MAX = 2**63 - 1


class CapacityPolicyChecker(Checker):
    """validateRequestPolicy of a capacity (ResourceSlice devices with allowMultipleAllocations)."""

    def request_policy(self, capacity: Quantity, policy: r.CapacityRequestPolicy, path: str) -> None:
        if policy.valid_values and policy.valid_range is not None:
            self.forbidden(
                path,
                'exactly one policy can be specified, cannot specify "validValues" and '
                '"validRange" at the same time',
            )
            return
        if policy.valid_values:
            if policy.default is None:
                self.required(child(path, "default"), "required when validValues is defined")
            else:
                self._valid_values(policy.default, capacity, policy.valid_values, child(path, "validValues"))
        elif policy.valid_range is not None:
            if policy.default is None:
                self.required(child(path, "default"), "required when validRange is defined")
            else:
                self._valid_range(policy.default, capacity, policy.valid_range, child(path, "validRange"))

    def _valid_values(
        self, default: Quantity, capacity: Quantity, values: Sequence[Quantity], path: str
    ) -> None:
        for i in range(len(values) - 1):
            if values[i].cmp(values[i + 1]) > 0:
                self.invalid(
                    index(path, i + 1), str(values[i + 1]), "values must be sorted in ascending order"
                )
        found_default = False

        def option(q: Quantity, p: str) -> None:
            nonlocal found_default
            if q.cmp(capacity) > 0:
                self.invalid(p, str(q), f"option is larger than capacity value: {capacity}")
            if q.cmp(default) == 0:
                found_default = True

        if self.features.fractional_capacity_range:

            def key(q: Quantity) -> object:
                return q.fraction
        else:

            def key(q: Quantity) -> object:
                return str(q.value())

        self.set(values, CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS, option, key, path)
        if not found_default:
            self.invalid(path, str(default), "default value is not valid according to the requestPolicy")

    def _valid_range(
        self, default: Quantity, capacity: Quantity, rng: r.CapacityRequestPolicyRange, path: str
    ) -> None:
        if rng.min is None:
            self.required(child(path, "min"), "required when validRange is defined")
            return
        lo = rng.min
        if lo.cmp(capacity) > 0:
            self.invalid(
                child(path, "min"), str(lo), f"min is larger than capacity value: {capacity}"
            )
        if default.cmp(lo) < 0:
            self.invalid(child(path, "default"), str(default), f"default is less than min: {lo}")
        if rng.max is not None:
            if lo.cmp(rng.max) > 0:
                self.invalid(child(path, "max"), str(lo), f"min is larger than max: {rng.max}")
            if rng.max.cmp(capacity) > 0:
                self.invalid(
                    child(path, "max"),
                    str(rng.max),
                    f"max is larger than capacity value: {capacity}",
                )
            if default.cmp(rng.max) > 0:
                self.invalid(
                    child(path, "default"), str(default), f"default is more than max: {rng.max}"
                )
        bounds = (("default", default), ("min", lo), ("max", rng.max), ("step", rng.step))
        use_milli = False
        if self.features.fractional_capacity_range:
            use_milli = any(q is not None and q.fraction.denominator != 1 for _, q in bounds)
            if use_milli:
                unsafe = False
                for name, q in bounds:
                    if q is not None and q.fraction * 1000 != q.milli_value():
                        self.invalid(
                            child(path, name), str(q), "value cannot be represented as a milli value"
                        )
                        unsafe = True
                if unsafe:
                    return
        if rng.step is None:
            return
        step = rng.step
        if step.sign() <= 0:
            self.invalid(child(path, "step"), str(step), "must be greater than zero")
            return
        added = lo + step
        if added.cmp(capacity) > 0:
            self.invalid(
                child(path, "step"),
                str(step),
                f"one step {added} is larger than capacity value: {capacity}",
            )
        if not use_milli:
            unsafe = False
            for name, q in bounds:
                if q is None:
                    continue
                if q.sign() < 0:
                    self.invalid(child(path, name), str(q), "must be greater than or equal to 0")
                    unsafe = True
                elif q.fraction > _INT64_MAX:
                    self.invalid(child(path, name), str(q), f"must not be larger than {_INT64_MAX}")
                    unsafe = True
            if unsafe:
                return
        self._range_step(default, lo, step, use_milli, child(path, "step"))
        if rng.max is not None:
            self._range_step(rng.max, lo, step, use_milli, child(path, "step"))

    def _range_step(self, value: Quantity, lo: Quantity, step: Quantity, use_milli: bool, path: str) -> None:
        conv = Quantity.milli_value if use_milli else Quantity.value
        step_v, lo_v, v = conv(step), conv(lo), conv(value)
        if step_v == 0:
            return
        # Go's % truncates toward zero; only zero/non-zero matters here.
        if (v - lo_v) % step_v != 0:
            self.invalid(
                path,
                str(value),
                f"value is not a multiple of a given step ({step}) from ({lo})",
            )
