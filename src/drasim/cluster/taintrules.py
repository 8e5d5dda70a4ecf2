"""Merging DeviceTaintRules into ResourceSlices, as the scheduler's slice tracker does."""

from __future__ import annotations

import copy

from drasim.api.resource import DeviceTaintRule, ResourceSlice


def rule_selects(rule: DeviceTaintRule, driver: str, pool: str, device: str, *,
                 nil_matches_all: bool) -> bool:
    """Whether the rule's selector picks the device (plain string equality per given field).

    A nil selector matches nothing by documentation; the 1.36 scheduler tracker treated it as
    "everything" (fixed upstream by PR #141648) — `nil_matches_all` chooses which to reproduce.
    """
    sel = rule.spec.device_selector
    if sel is None:
        return nil_matches_all
    return ((sel.driver is None or sel.driver == driver) and (sel.pool is None or sel.pool == pool)
            and (sel.device is None or sel.device == device))


def apply_taint_rules(slices: list[ResourceSlice], rules: list[DeviceTaintRule], *,
                      nil_matches_all: bool = True) -> list[ResourceSlice]:
    """Slices with every rule's taint appended to the devices it selects (inputs are not modified)."""
    if not rules:
        return slices
    out = []
    for slc in slices:
        hits = [(i, r) for i, dev in enumerate(slc.spec.devices) for r in rules
                if rule_selects(r, slc.spec.driver, slc.spec.pool.name, dev.name,
                                nil_matches_all=nil_matches_all)]
        if not hits:
            out.append(slc)
            continue
        slc = copy.deepcopy(slc)
        for i, rule in hits:
            slc.spec.devices[i].taints.append(copy.copy(rule.spec.taint))
        out.append(slc)
    return out
