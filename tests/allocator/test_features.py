"""Feature flags, implementation variants, version profiles and the step deadline."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from drasim.allocator import Features
from drasim.allocator.errors import DeadlineExceeded
from drasim.allocator.versions import features_for_version
from drasim.cli.scenarios import load_scenario_input
from drasim.runner.scenario import run_scenario

ROOT = Path(__file__).resolve().parents[1] / "conformance"


def test_defaults_are_the_136_scheduler_defaults() -> None:
    f = Features()
    assert f.enabled() == ["AdminAccess", "ConsumableCapacity", "DeviceBindingAndStatus", "DeviceTaints",
                           "PartitionableDevices", "PrioritizedList"]
    assert f.variant() == "incubating"
    assert features_for_version("1.36") == f
    # 1.37 has the same allocator gates but runs the 1.37 code (drasim.releases).
    assert dataclasses.replace(features_for_version("1.37"), release="1.36") == f


@pytest.mark.parametrize("flags,variant", [
    ({}, "incubating"),
    ({"consumableCapacity": False, "deviceBindingAndStatus": False}, "stable"),
    ({"listTypeAttributes": True}, "experimental"),
])
def test_variant_is_the_first_that_covers_the_enabled_set(flags: dict, variant: str) -> None:
    assert Features.from_flags(flags).variant() == variant


def test_unknown_flag_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown feature flag"):
        Features.from_flags({"bogus": True})


def test_134_has_no_partitionable_devices_or_taints() -> None:
    f = features_for_version("1.34")
    assert f.prioritized_list and f.admin_access
    assert not (f.partitionable_devices or f.device_taints or f.consumable_capacity)
    with pytest.raises(ValueError, match="unsupported Kubernetes version"):
        features_for_version("1.20")


def test_step_deadline_aborts_like_the_filter_timeout() -> None:
    from drasim.allocator import AllocatedState, Allocator
    from drasim.allocator.cache import SliceCache
    from drasim.api.core import Node
    from drasim.api.meta import ObjectMeta
    from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice

    name = "TestAllocator_prioritized-list-max-allocation-limit-request.yaml"
    sc, _ = load_scenario_input(str(ROOT / "upstream-v1.36" / name))
    objs = sc.objects
    classes = {o.metadata.name: o for o in objs if isinstance(o, DeviceClass)}
    slices = [o for o in objs if isinstance(o, ResourceSlice)]
    claims = [o for o in objs if isinstance(o, ResourceClaim)]
    alloc = Allocator(sc.features, AllocatedState(), classes, SliceCache(slices), max_steps=10)
    with pytest.raises(DeadlineExceeded, match=r"^filter operation aborted: "):
        alloc.allocate(Node(metadata=ObjectMeta(name=sc.node or "node-1")), claims)
    assert alloc.stats.steps == 11
    # Without the limit the same call completes (75 steps upstream and here).
    out = run_scenario(sc, with_stats=True)
    assert out["steps"][0]["searchSteps"] == 75
