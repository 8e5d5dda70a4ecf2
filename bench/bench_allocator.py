"""Allocator benchmarks: per-call timings on fills, MIG, a 1,000-node cluster and the random vectors."""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GPU_CLASS, MIG_CLASS, build, claim, exact, gpu_slice, median_us, report
from drasim.allocator import AllocatedState, Allocator, DeviceID, Features
from drasim.allocator.cache import SliceCache
from drasim.api.core import Node
from drasim.api.meta import ObjectMeta
from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice

ROOT = Path(__file__).resolve().parent.parent
UPSTREAM_US = {"fill64": 36.0, "mig56": 134.0, "nodes1000": 1600.0}


def _fill(slices: list[ResourceSlice], classes: dict[str, DeviceClass], node: Node,
          claims: list[ResourceClaim]) -> list[float]:
    """Allocate claims one per call, committing each result, like pods arriving one by one."""
    cache = SliceCache(slices)
    state = AllocatedState()
    times = []
    features = Features()
    for c in claims:
        t = time.perf_counter()
        alloc = Allocator(features, state, classes, cache)
        res = alloc.allocate(node, [c])
        times.append(time.perf_counter() - t)
        if res is None:
            break
        for r in res[0].devices.results:
            state.devices.add(DeviceID(r.driver, r.pool, r.device))
    return times


def bench_fill64() -> float:
    node = Node(metadata=ObjectMeta(name="node-0"))
    slices = [build(ResourceSlice, gpu_slice("node-0", 64))]
    classes = {"gpu.nvidia.com": build(DeviceClass, GPU_CLASS)}
    claims = [build(ResourceClaim, claim(f"c-{i}", [exact("gpu", "gpu.nvidia.com")])) for i in range(64)]
    times = _fill(slices, classes, node, claims)
    assert len(times) == 64
    return median_us(times)


def bench_mig56() -> float:
    seed = ROOT / "tests/conformance/seed/seed-05-two-mig-slices-partitionable-a100.yaml"
    import yaml
    doc = yaml.safe_load(seed.read_text())
    objs = doc["objects"]
    counters = next(o for o in objs if o["kind"] == "ResourceSlice" and o["spec"].get("sharedCounters"))
    gpu0 = next(o for o in objs if o["kind"] == "ResourceSlice" and o["metadata"]["name"].endswith("gpu-0"))
    base_set = counters["spec"]["sharedCounters"][0]
    pool = {"name": "a100-mig", "generation": 1, "resourceSliceCount": 9}
    slices_data = [{**counters, "metadata": {"name": "a100-mig-counters"},
                    "spec": {**counters["spec"], "nodeName": "a100-mig", "pool": pool,
                             "sharedCounters": [{**base_set, "name": f"gpu-{g}-counter-set"} for g in range(8)]}}]
    for g in range(8):
        s = copy.deepcopy(gpu0)
        s["metadata"]["name"] = f"a100-mig-gpu-{g}"
        s["spec"]["nodeName"] = "a100-mig"
        s["spec"]["pool"] = pool
        for d in s["spec"]["devices"]:
            d["name"] = d["name"].replace("gpu-0", f"gpu-{g}", 1)
            for a in ("uuid", "parentUUID"):
                if a in d["attributes"]:
                    d["attributes"][a]["string"] += f"-{g}"
            for cc in d.get("consumesCounters", []):
                cc["counterSet"] = f"gpu-{g}-counter-set"
        slices_data.append(s)
    slices = [build(ResourceSlice, s) for s in slices_data]
    classes = {"mig.nvidia.com": build(DeviceClass, MIG_CLASS), "gpu.nvidia.com": build(DeviceClass, GPU_CLASS)}
    sel = 'device.attributes["gpu.nvidia.com"].profile == "1g.5gb"'
    claims = [build(ResourceClaim, claim(f"m-{i}", [exact("mig", "mig.nvidia.com", 1, [sel])])) for i in range(56)]
    times = _fill(slices, classes, Node(metadata=ObjectMeta(name="a100-mig")), claims)
    assert len(times) == 56, len(times)
    return median_us(times)


def bench_nodes1000() -> float:
    slices = [build(ResourceSlice, gpu_slice(f"node-{n}", 8)) for n in range(1000)]
    classes = {"gpu.nvidia.com": build(DeviceClass, GPU_CLASS)}
    c = build(ResourceClaim, claim("c", [exact("gpu", "gpu.nvidia.com")]))
    cache = SliceCache(slices)
    times = []
    for n in range(0, 1000, 10):
        node = Node(metadata=ObjectMeta(name=f"node-{n}"))
        t = time.perf_counter()
        Allocator(Features(), AllocatedState(), classes, cache).allocate(node, [c])
        times.append(time.perf_counter() - t)
    return median_us(times)


def bench_random_vectors() -> tuple[float, int]:
    from drasim.cli.scenarios import load_scenario_input
    from drasim.runner.scenario import run_scenario
    files = sorted((ROOT / "tests/conformance/random").glob("*.yaml"))
    inputs = [load_scenario_input(str(f))[0] for f in files]
    calls = sum(len(sc.steps) for sc in inputs)
    t = time.perf_counter()
    for sc in inputs:
        run_scenario(sc)
    return (time.perf_counter() - t) / calls * 1e6, calls


def main() -> None:
    print("== allocator (median per Allocate call; upstream Go allocator on this machine class in brackets)")
    for key, label, fn in (("fill64", "fill 64 GPUs on one node, one claim per call", bench_fill64),
                           ("mig56", "fill 8 partitionable A100s with 56 1g.5gb claims", bench_mig56),
                           ("nodes1000", "one allocation among 1,000 nodes x 8 GPUs", bench_nodes1000)):
        value = fn()
        up = UPSTREAM_US[key]
        report(label, value, "us", 2 * up, reference=f"  [upstream {up:g} us, {value / up:.1f}x of it]")
    per_call, calls = bench_random_vectors()
    report(f"300 random vectors ({calls} calls incl. set-up), mean per call", per_call, "us")


if __name__ == "__main__":
    main()
