"""nodealloc.claim_statuses against upstream's TestBuildNodeAllocatableDRAInfo cases.

kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources_test.go
(read at 0c29b313, whose status type is already the later `AdditionalNodeAllocatableResource`; drasim writes
the 1.37 `nodeAllocatableResourceClaimStatuses` of kubernetes/api 66d2a54e with the same containers, mapping
and overhead). Slices, claims and results are upstream's; the expected statuses too, with empty lists
omitted as their omitempty JSON omits them.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from helpers import build

from drasim.allocator.pools import Pool
from drasim.api.core import Pod
from drasim.api.quantity import quantity_enc_hook
from drasim.api.resource import AllocationResult, ResourceClaim, ResourceSlice
from drasim.scheduler import nodealloc as na

DRIVER = "dra.example.com"
CPU_PER_INSTANCE = {"name": "cpu0", "nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "1"}}}}
CPU_CAPACITY = {"name": "cpu0", "nodeAllocatableResources": {"cpu": {"mapping": {"capacityKey": f"{DRIVER}/cpu"}}}}
CPU_MEM_CAPACITY = {"name": "device1", "nodeAllocatableResources": {
    "cpu": {"mapping": {"capacityKey": f"{DRIVER}/cpu"}},
    "memory": {"mapping": {"capacityKey": f"{DRIVER}/memory"}}}}
GPU_AUX = {"name": "gpu0", "nodeAllocatableResources": {
    "cpu": {"mapping": {"deviceMultiplier": "2"}}, "memory": {"mapping": {"deviceMultiplier": "4Gi"}}}}
COMBINED = {"name": "combined-device", "nodeAllocatableResources": {
    "cpu": {"mapping": {"deviceMultiplier": "2"}, "overhead": {"perPod": "1", "perContainer": "500m"}}}}


def _overhead(**o: str) -> dict[str, Any]:
    return {"name": "device1", "nodeAllocatableResources": {"memory": {"overhead": o}}}


def _pools(*devices: dict[str, Any]) -> list[Pool]:
    s = build(ResourceSlice, {"metadata": {"name": "slice1"}, "spec": {
        "driver": DRIVER, "nodeName": "test-node", "pool": {"name": "pool1"}, "devices": list(devices)}})
    return [Pool(driver=DRIVER, name="pool1", slices=[s])]


def _pod(containers: dict[str, list[str]]) -> Pod:
    return build(Pod, {"metadata": {"name": "test-pod", "namespace": "test-ns"}, "spec": {
        "containers": [{"name": n, "resources": {"claims": [{"name": c} for c in claims]}}
                       for n, claims in containers.items()]}})


def _claim(name: str, device: str, consumed: dict[str, str] | None = None) -> tuple[str, ResourceClaim,
                                                                                   AllocationResult]:
    result: dict[str, Any] = {"driver": DRIVER, "pool": "pool1", "device": device, "request": "req"}
    if consumed is not None:
        result["consumedCapacity"] = consumed
    claim = build(ResourceClaim, {"metadata": {"name": name, "namespace": "test-ns"}})
    return name, claim, build(AllocationResult, {"devices": {"results": [result]}})


def _wire(statuses: list[Any]) -> list[dict[str, Any]]:
    return [msgspec.to_builtins(s, enc_hook=quantity_enc_hook) for s in statuses]


CASES: list[tuple[str, dict[str, list[str]], list[Any], list[dict[str, Any]], list[dict[str, Any]]]] = [
    ("one container, one claim, per instance quantity", {"c1": ["node-allocatable-claim"]},
     [_claim("node-allocatable-claim", "cpu0")], [CPU_PER_INSTANCE],
     [{"resourceClaimName": "node-allocatable-claim", "containers": ["c1"],
       "mapping": [{"name": "cpu", "quantity": "1"}]}]),
    ("Pod with Standard and DRA CPU and Memory Request", {"c1": ["node-allocatable-claim"]},
     [_claim("node-allocatable-claim", "device1", {f"{DRIVER}/cpu": "4", f"{DRIVER}/memory": "8Gi"})],
     [CPU_MEM_CAPACITY],
     [{"resourceClaimName": "node-allocatable-claim", "containers": ["c1"],
       "mapping": [{"name": "cpu", "quantity": "4"}, {"name": "memory", "quantity": "8Gi"}]}]),
    ("Fungible GPU/CPU claim - GPU selected", {"c1": ["fungible-claim"]},
     [_claim("fungible-claim", "gpu0")], [{"name": "gpu0"}], []),
    ("Fungible GPU/CPU claim - CPU selected", {"c1": ["fungible-claim"]},
     [_claim("fungible-claim", "cpu0", {f"{DRIVER}/cpu": "30"})], [CPU_CAPACITY],
     [{"resourceClaimName": "fungible-claim", "containers": ["c1"], "mapping": [{"name": "cpu", "quantity": "30"}]}]),
    ("Combined CPU request and Auxiliary Request", {"c1": ["gpu-claim", "cpu-claim"]},
     [_claim("cpu-claim", "cpu0", {f"{DRIVER}/cpu": "10"}), _claim("gpu-claim", "gpu0")], [CPU_CAPACITY, GPU_AUX],
     [{"resourceClaimName": "cpu-claim", "containers": ["c1"], "mapping": [{"name": "cpu", "quantity": "10"}]},
      {"resourceClaimName": "gpu-claim", "containers": ["c1"],
       "mapping": [{"name": "cpu", "quantity": "2"}, {"name": "memory", "quantity": "4Gi"}]}]),
    ("shared CPU claim and sidecar containers", {"c1": ["cpu-claim"], "c2": ["cpu-claim"], "sidecar1": [],
                                                 "sidecar2": []},
     [_claim("cpu-claim", "cpu0", {f"{DRIVER}/cpu": "10"})], [CPU_CAPACITY],
     [{"resourceClaimName": "cpu-claim", "containers": ["c1", "c2"], "mapping": [{"name": "cpu", "quantity": "10"}]}]),
    ("Unreferenced Claims", {"c1": []}, [_claim("unref-claim", "cpu0", {f"{DRIVER}/cpu": "4"})], [CPU_CAPACITY],
     [{"resourceClaimName": "unref-claim", "mapping": [{"name": "cpu", "quantity": "4"}]}]),
    ("Unreferenced Claims with Overhead Per Container Only", {"c1": []}, [_claim("unref-claim", "device1")],
     [_overhead(perContainer="500Mi")],
     [{"resourceClaimName": "unref-claim", "overhead": [{"name": "memory", "perContainer": "500Mi"}]}]),
    ("Combined Capacity and PerAllocatedUnitQuantity", {"c1": ["claim1"]},
     [_claim("claim1", "device1", {f"{DRIVER}/cores": "4"})],
     [{"name": "device1", "nodeAllocatableResources": {"cpu": {"mapping": {
         "capacityKey": f"{DRIVER}/cores", "capacityMultiplier": "2"}}}}],
     [{"resourceClaimName": "claim1", "containers": ["c1"], "mapping": [{"name": "cpu", "quantity": "8"}]}]),
    ("Capacity Key Missing in Allocation - Should be Ignored", {"c1": ["claim1"]},
     [_claim("claim1", "cpu0", {f"{DRIVER}/wrong": "4"})], [CPU_CAPACITY], []),
    ("Overhead Mappings - Multiple Containers", {"c1": ["claim1"], "c2": ["claim1"]}, [_claim("claim1", "device1")],
     [_overhead(perPod="1Gi", perContainer="500Mi")],
     [{"resourceClaimName": "claim1", "containers": ["c1", "c2"],
       "overhead": [{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}]}]),
    ("Combined direct mapped and overhead mappings for the same resource", {"c1": ["claim1"]},
     [_claim("claim1", "device1")],
     [{"name": "device1", "nodeAllocatableResources": {"memory": {
         "mapping": {"deviceMultiplier": "2Gi"}, "overhead": {"perPod": "1Gi", "perContainer": "500Mi"}}}}],
     [{"resourceClaimName": "claim1", "containers": ["c1"], "mapping": [{"name": "memory", "quantity": "2Gi"}],
       "overhead": [{"name": "memory", "perPod": "1Gi", "perContainer": "500Mi"}]}]),
    ("device with both mapped and overhead", {"c1": ["claim1"]}, [_claim("claim1", "combined-device")], [COMBINED],
     [{"resourceClaimName": "claim1", "containers": ["c1"], "mapping": [{"name": "cpu", "quantity": "2"}],
       "overhead": [{"name": "cpu", "perPod": "1", "perContainer": "500m"}]}]),
]


@pytest.mark.parametrize(("containers", "claims", "devices", "want"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_build_node_allocatable_dra_info(containers: dict[str, list[str]], claims: list[Any],
                                         devices: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    got = na.claim_statuses(_pod(containers), claims, _pools(*devices), v136=False)
    assert _wire(got) == want


def test_driver_name_collision_with_same_pool_and_device_name() -> None:
    # The device is looked up by driver, pool and name: driver-b's cpu0 maps 8, driver-a's 1.
    def pool(driver: str, multiplier: str) -> Pool:
        s = build(ResourceSlice, {"metadata": {"name": driver}, "spec": {
            "driver": driver, "nodeName": "test-node", "pool": {"name": "pool1"}, "devices": [
                {"name": "cpu0", "nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": multiplier}}}}]}})
        return Pool(driver=driver, name="pool1", slices=[s])
    claim = build(ResourceClaim, {"metadata": {"name": "claim1", "namespace": "test-ns"}})
    alloc = build(AllocationResult, {"devices": {"results": [
        {"driver": "driver-b.example.com", "pool": "pool1", "device": "cpu0", "request": "r"}]}})
    (st,) = na.claim_statuses(_pod({"c1": ["claim1"]}), [("claim1", claim, alloc)],
                              [pool("driver-a.example.com", "1"), pool("driver-b.example.com", "8")], v136=False)
    assert [(m.name, str(m.quantity)) for m in st.mapping or ()] == [("cpu", "8")]


def test_device_not_found_is_an_error() -> None:
    # "Invalid - Device Not Found": a node-allocatable claim whose other result names no device of the node.
    name, claim, alloc = _claim("claim1", "cpu0")
    alloc = build(AllocationResult, {"devices": {"results": [
        {"driver": DRIVER, "pool": "pool1", "device": "cpu0", "request": "req"},
        {"driver": DRIVER, "pool": "pool1", "device": "nonexistent", "request": "req"}]}})
    with pytest.raises(na.ChargeError) as err:
        na.claim_statuses(_pod({"c1": ["claim1"]}), [(name, claim, alloc)], _pools(CPU_PER_INSTANCE), v136=False)
    assert str(err.value) == ("claim test-ns/claim1, device nonexistent, driver dra.example.com: device nonexistent "
                              "not found in pool pool1 for driver dra.example.com")


def test_insufficient_cpu_and_memory_are_both_reasons() -> None:
    # nodeFitsResources: every short resource is a reason; unresolvable when one exceeds the node itself.
    st = na.fits({"cpu": 3000, "memory": 2 << 30}, {"cpu": 4000, "memory": 4 << 30}, {"cpu": 2000, "memory": 3 << 30})
    assert st is not None and st.reasons == ("Insufficient cpu", "Insufficient memory")
    assert st.code == "Unschedulable" and st.plugin == "DynamicResources"
    big = na.fits({"cpu": 5000}, {"cpu": 4000}, {})
    assert big is not None and big.code == "UnschedulableAndUnresolvable"
    assert na.fits({"cpu": 2000}, {"cpu": 4000}, {"cpu": 2000}) is None
