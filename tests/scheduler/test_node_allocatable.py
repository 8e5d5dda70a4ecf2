"""DRANodeAllocatableResources (KEP-5517): devices whose allocation charges the node's cpu/memory.

Sources: kubernetes master 0411cc70 pkg/scheduler/framework/plugins/dynamicresources/
nodeallocatabledynamicresources.go (buildNodeAllocatableDRAInfo, addDeviceMapping, addDeviceOverhead,
nodeFitsResources, validateNodeAllocatableDRAClaimSharing); kubernetes 0085214e staging/src/k8s.io/
component-helpers/resource/helpers.go (addDRANodeAllocatableClaimResources); kubernetes/api v0.36.0 and
master 66d2a54e resource/v1 and core/v1 types.go; KEP-5517's "Resource Representation Examples"; the
dra-example-driver's e2e test for native-resource-request (test/e2e/e2e_test.go, 31914ce).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim import lib
from drasim.api.core import NodeAllocatableOverheadResources, NodeAllocatableResourceClaimStatus
from drasim.api.quantity import Quantity
from drasim.cli.explain import explain
from drasim.cli.simulate import simulate
from drasim.scheduler.resources import claim_status_requests
from hypothesis_budget import examples

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "native-resource-request"
MANIFEST = (ROOT / "tests" / "realworld" / "dra-example-driver" / "demo" / "examples" / "native-resource-request"
            / "native-resource-request.yaml")
WEBSITE = ROOT / "tests" / "realworld" / "k8s-website" / "docs"
GATE = "DRANodeAllocatableResources=true"
DRIVER = "cpu.example.com"


def _node(cpu: str = "3", memory: str = "16Gi") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker"},
            "status": {"allocatable": {"pods": "110", "cpu": cpu, "memory": memory}}}


def _class(driver: str = DRIVER) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": driver},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{driver}'"}}]}}


def _slice(devices: list[dict[str, Any]], driver: str = DRIVER) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"worker-{driver}"},
            "spec": {"driver": driver, "nodeName": "worker",
                     "pool": {"name": "worker", "generation": 1, "resourceSliceCount": 1}, "devices": devices}}


def _template(name: str, request: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name},
            "spec": {"spec": {"devices": {"requests": [{"name": "req", "exactly": request}]}}}}


def _pod(name: str, template: str | None = None, cpu: str | None = None, containers: int = 1) -> dict[str, Any]:
    ctrs = []
    for i in range(containers):
        res: dict[str, Any] = {}
        if template:
            res["claims"] = [{"name": "devs"}]
        if cpu:
            res["requests"] = {"cpu": cpu}
        ctrs.append({"name": f"c{i}", "image": "busybox", "resources": res})
    spec: dict[str, Any] = {"containers": ctrs}
    if template:
        spec["resourceClaims"] = [{"name": "devs", "resourceClaimTemplateName": template}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def _run(tmp_path: Path, docs: list[dict[str, Any]], version: str = "1.37", gates: str = GATE
         ) -> lib.Simulation:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    inputs = lib.load([str(path)], release=lib.profile(version, gates))
    return lib.simulate(inputs)


def _explain(tmp_path: Path, docs: list[dict[str, Any]], pod: str) -> Any:
    """`drasim explain POD` of the documents at 1.37 with the gate on (exit 0 asserted)."""
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    result = CliRunner().invoke(explain, [pod, "-f", str(path), "--kubernetes-version", "1.37",
                                          "--feature-gates", GATE])
    assert result.exit_code == 0, result.output
    return result


def _pods(sim: lib.Simulation) -> dict[str, Any]:
    return {p.key[1]: p for p in sim.pods}


def _status(sim: lib.Simulation, name: str) -> list[NodeAllocatableResourceClaimStatus]:
    pod = sim.result.state.pods[("default", name)]
    return list(pod.status.node_allocatable_resource_claim_statuses) if pod.status is not None else []


def _cpu_numa(capacity: str = "8") -> dict[str, Any]:
    return {"name": "numa-0", "allowMultipleAllocations": True,
            "capacity": {f"{DRIVER}/cpu": {"value": capacity}},
            "nodeAllocatableResources": {"cpu": {"mapping": {"capacityKey": f"{DRIVER}/cpu",
                                                             "capacityMultiplier": "1"}}}}


def _cpus(n: str) -> dict[str, Any]:
    return {"deviceClassName": DRIVER, "capacity": {"requests": {f"{DRIVER}/cpu": n}}}


def test_kep_example_device_multiplier(tmp_path: Path) -> None:
    # KEP-5517 "Direct Device Mapping with Individual Devices": two 1-cpu devices, a claim for 2 -> cpu 2.
    devices = [{"name": f"cpu{i}", "attributes": {"numaNode": {"int": 0}},
                "nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "1"}}}} for i in range(2)]
    sim = _run(tmp_path, [_node(), _class(), _slice(devices),
                          _template("t", {"deviceClassName": DRIVER, "count": 2}), _pod("pod1", "t")])
    assert _pods(sim)["pod1"].status == "Running"
    (st_,) = _status(sim, "pod1")
    assert st_.resource_claim_name.startswith("pod1-devs-")  # the generated claim, not the pod-local name
    assert st_.containers == ["c0"]
    assert [(m.name, str(m.quantity)) for m in st_.mapping or ()] == [("cpu", "2")]
    assert st_.overhead is None and st_.resources is None


def test_claims_charge_the_node_and_the_next_pod_gets_insufficient_cpu(tmp_path: Path) -> None:
    # nodeFitsResources: the pod's requests plus its claims' charges against allocatable minus requested;
    # once bound, the status counts as requested (PodRequests with UseDRANodeAllocatableResourceClaimStatus).
    docs = [_node("3"), _class(), _slice([_cpu_numa()]), _template("two", _cpus("2")),
            _pod("a", "two"), _pod("b", "two"), _pod("plain", cpu="2")]
    sim = _run(tmp_path, docs)
    pods = _pods(sim)
    assert pods["a"].status == "Running"
    assert pods["b"].status == "Pending" and pods["plain"].status == "Pending"
    assert pods["b"].reason.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    assert pods["plain"].reason.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    last_b = sim.result.pods[("default", "b")].last
    assert last_b is not None and last_b.node_statuses["worker"].plugin == "DynamicResources"
    last_plain = sim.result.pods[("default", "plain")].last
    assert last_plain is not None and last_plain.node_statuses["worker"].plugin == "NodeResourcesFit"


def test_more_than_the_node_has_is_unresolvable(tmp_path: Path) -> None:
    docs = [_node("3"), _class(), _slice([_cpu_numa()]), _template("four", _cpus("4")), _pod("big", "four")]
    sim = _run(tmp_path, docs)
    last = sim.result.pods[("default", "big")].last
    assert last is not None
    status = last.node_statuses["worker"]
    assert status.reasons == ("Insufficient cpu",) and status.code == "UnschedulableAndUnresolvable"


def test_without_the_gate_the_field_is_dropped_and_nothing_is_charged(tmp_path: Path) -> None:
    docs = [_node("3"), _class(), _slice([_cpu_numa()]), _template("two", _cpus("2")),
            _pod("a", "two"), _pod("b", "two")]
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    inputs = lib.load([str(path)], release=lib.profile("1.37"))
    assert any("DRANodeAllocatableResources feature gate is disabled" in str(f)
               for _src, f in inputs.admission.findings)
    sim = lib.simulate(inputs)
    assert {p.key[1]: p.status for p in sim.pods} == {"a": "Running", "b": "Running"}
    assert _status(sim, "a") == []


def test_overhead_per_pod_and_per_container(tmp_path: Path) -> None:
    # addDeviceOverhead + addDRANodeAllocatableClaimResources: perPod once, perContainer per referencing container.
    gpu = {"name": "gpu-0", "nodeAllocatableResources": {
        "memory": {"overhead": {"perPod": "1Gi", "perContainer": "512Mi"}}}}
    docs = [_node("3"), _class("gpu.example.com"), _slice([gpu], "gpu.example.com"),
            _template("g", {"deviceClassName": "gpu.example.com"}), _pod("p", "g", containers=2)]
    sim = _run(tmp_path, docs)
    (st_,) = _status(sim, "p")
    assert st_.containers == ["c0", "c1"] and st_.mapping is None
    (o,) = st_.overhead or ()
    assert (o.name, str(o.per_pod), str(o.per_container)) == ("memory", "1Gi", "512Mi")
    assert claim_status_requests([st_]) == {"memory": 2 * 1024**3}


def test_overhead_only_claims_may_be_shared_but_mapped_ones_not(tmp_path: Path) -> None:
    # validateNodeAllocatableDRAClaimSharing (1.37): a claim with a mapped device reserved by another pod.
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared"},
             "spec": {"devices": {"requests": [{"name": "req", "exactly": _cpus("1")}]}}}
    def user(name: str) -> dict[str, Any]:
        pod = _pod(name)
        pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "devs"}]
        pod["spec"]["resourceClaims"] = [{"name": "devs", "resourceClaimName": "shared"}]
        return pod
    sim = _run(tmp_path, [_node("3"), _class(), _slice([_cpu_numa()]), claim, user("first"), user("second")])
    pods = _pods(sim)
    assert pods["first"].status == "Running" and pods["second"].status == "Pending"
    assert "node allocatable resource claim shared has a mapped device and cannot be shared across pods" in \
        pods["second"].reason


def test_consumed_capacity_missing_is_a_filter_error(tmp_path: Path) -> None:
    # addDeviceMapping: a capacityKey mapping on a device allocated without consumedCapacity (no
    # allowMultipleAllocations: the allocator records none).
    dev = {"name": "numa-0", "capacity": {f"{DRIVER}/cpu": {"value": "2"}},
           "nodeAllocatableResources": {"cpu": {"mapping": {"capacityKey": f"{DRIVER}/cpu",
                                                            "capacityMultiplier": "1"}}}}
    sim = _run(tmp_path, [_node(), _class(), _slice([dev]), _template("t", {"deviceClassName": DRIVER}),
                          _pod("p", "t")])
    (line,) = sim.pods
    assert line.status == "Pending"
    assert "ConsumedCapacity is nil, but Capacity key 'cpu.example.com/cpu' is set in NodeAllocatableResources " \
        "for resource cpu" in line.reason


def test_1_36_shape_allocation_multiplier_per_device(tmp_path: Path) -> None:
    # kubernetes/api v0.36.0: without capacityKey, allocationMultiplier per allocated device; status `resources`.
    docs = [_node(), _class("xpu.example.com"),
            *[d for d in yaml.safe_load_all((WEBSITE / "how-dra-works--xpu-node-allocatable-slice.yaml").read_text())],
            _template("x", {"deviceClassName": "xpu.example.com"}), _pod("p", "x")]
    docs[2]["spec"]["nodeName"] = "worker"
    sim = _run(tmp_path, docs, version="1.36")
    (st_,) = _status(sim, "p")
    assert st_.resources is not None and {k: str(v) for k, v in st_.resources.items()} == {"memory": "8Gi"}
    assert st_.mapping is None and st_.overhead is None


@pytest.mark.parametrize(("version", "path", "field"), [
    ("1.37", EXAMPLE / "cluster-1.36.yaml", "nodeAllocatableResourceMappings"),
    ("1.36", EXAMPLE / "cluster-1.37.yaml", "nodeAllocatableResources"),
    ("1.35", EXAMPLE / "cluster-1.36.yaml", "nodeAllocatableResourceMappings"),
])
def test_the_other_release_field_is_unknown(version: str, path: Path, field: str) -> None:
    inputs = lib.load([str(path)], release=lib.profile(version))
    (err,) = inputs.admission.errors()
    assert f'spec.devices[0].{field}: unknown field "{field}"' in str(err[1])


def test_example_driver_native_resource_request_end_to_end() -> None:
    # dra-example-driver test/e2e/e2e_test.go: pod0 runs, its claim's status has cpu 2 for ctr0 under the
    # generated claim name, and both requests share numa-0 with distinct shareIDs.
    for version in ("1.37", "1.36"):
        result = CliRunner().invoke(simulate, ["-f", str(EXAMPLE / f"cluster-{version}.yaml"), "-f", str(MANIFEST),
                                               "--kubernetes-version", version, "--feature-gates", GATE, "-o", "json"])
        assert result.exit_code == 0, result.output
        items = json.loads(result.output)["items"]
        (pod,) = [o for o in items if o["kind"] == "Pod"]
        (claim,) = [o for o in items if o["kind"] == "ResourceClaim"]
        assert pod["spec"]["nodeName"] == "worker"
        (st_,) = pod["status"]["nodeAllocatableResourceClaimStatuses"]
        assert st_["resourceClaimName"] == claim["metadata"]["name"] != "cpus"
        assert st_["containers"] == ["ctr0"]
        if version == "1.37":
            assert st_["mapping"] == [{"name": "cpu", "quantity": "2"}] and "resources" not in st_
        else:
            assert st_["resources"] == {"cpu": "2"} and "mapping" not in st_
        results = claim["status"]["allocation"]["devices"]["results"]
        assert [r["device"] for r in results] == ["numa-0", "numa-0"]
        assert len({r["shareID"] for r in results}) == 2


def test_explain_traces_insufficient_cpu_to_the_claims(tmp_path: Path) -> None:
    docs = [_node("3"), _class(), _slice([_cpu_numa()]), _template("two", _cpus("2")), _pod("a", "two"),
            _pod("b", "two")]
    result = _explain(tmp_path, docs, "pod/b")
    assert "worker: DynamicResources: Insufficient cpu: the pod's claims take 2 cpu (claim b-devs-" in result.output
    assert "on top of its containers' 0; the node has 1 of 3 left" in result.output


@given(count=st.integers(1, 4), milli=st.integers(1, 4000))
def test_device_multiplier_charges_count_times_multiplier(count: int, milli: int) -> None:
    # The invariant of addDeviceMapping + addDRANodeAllocatableClaimResources: n devices x deviceMultiplier.
    from drasim.api.core import NodeAllocatableMappedResources
    total = Quantity.parse("0")
    for _ in range(count):
        total = total + Quantity.parse(f"{milli}m")
    status = NodeAllocatableResourceClaimStatus(
        resource_claim_name="c", containers=["a", "b"],
        mapping=[NodeAllocatableMappedResources(name="cpu", quantity=total)],
        overhead=[NodeAllocatableOverheadResources(name="cpu", per_container=Quantity.parse(f"{milli}m"))])
    assert claim_status_requests([status]) == {"cpu": count * milli + 2 * milli}


def test_quantity_mul_is_exact() -> None:
    assert Quantity.parse("3").mul(Quantity.parse("2")) == Quantity.parse("6")
    assert Quantity.parse("1.5").mul(Quantity.parse("4Gi")).value() == 6 * 1024**3
    assert Quantity.parse("3").mul(Quantity.parse("500m")).canonical() == "1500m"


def test_simulate_table_shows_what_each_claim_charges() -> None:
    result = CliRunner().invoke(simulate, ["-f", str(EXAMPLE / "cluster-1.37.yaml"), "-f", str(MANIFEST),
                                           "--kubernetes-version", "1.37", "--feature-gates", GATE])
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()[1:3]
    assert header.split()[-2:] == ["NODE", "RESOURCES"]
    assert row.split()[-2:] == ["cpu", "2"]
    plain = CliRunner().invoke(simulate, ["-f", str(EXAMPLE / "cluster-1.37.yaml"), "-f", str(MANIFEST),
                                          "--kubernetes-version", "1.37"])
    assert "NODE RESOURCES" not in plain.output  # the gate off: nothing charged, the usual columns


def test_validation_messages_of_the_1_37_field(tmp_path: Path) -> None:
    # kubernetes 009801d9 pkg/apis/resource/validation/validation.go validateNodeAllocatableResources & co.
    device = {"name": "numa-0", "capacity": {f"{DRIVER}/cpu": {"value": "2"}}, "nodeAllocatableResources": {
        "nvidia.com/gpu": {},
        "cpu": {"mapping": {"capacityKey": f"{DRIVER}/cores", "deviceMultiplier": "0"}},
        "memory": {"mapping": {"capacityMultiplier": "2"}, "overhead": {}},
        "hugepages-2Mi": {"overhead": {"perPod": "-1Mi"}}}}
    path = tmp_path / "slice.yaml"
    path.write_text(yaml.safe_dump(_slice([device])))
    inputs = lib.load([str(path)], release=lib.profile("1.37", GATE))
    found = sorted(str(f) for _src, f in inputs.admission.findings if f.severity == "error")
    p = "spec.devices[0].nodeAllocatableResources"
    assert found == [
        f'{p}[cpu].mapping.capacityKey: Not found: "cpu.example.com/cores"',
        f"{p}[cpu].mapping.capacityMultiplier: Required value: capacityMultiplier is required when capacityKey is set",
        f'{p}[cpu].mapping.deviceMultiplier: Invalid value: "0": must be positive',
        f'{p}[hugepages-2Mi].overhead.perPod: Invalid value: "-1Mi": must be non-negative',
        f"{p}[memory].mapping.capacityKey: Required value: capacityKey is required when capacityMultiplier is set",
        f'{p}[memory].overhead: Invalid value: "": at least one of perPod or perContainer must be set',
        f'{p}[nvidia.com/gpu]: Invalid value: "nvidia.com/gpu": must be a node allocatable resource name',
        f"{p}[nvidia.com/gpu]: Required value: at least one of mapping or overhead must be set",
    ]


def test_capacity_counts_the_node_cpu_the_claims_take(tmp_path: Path) -> None:
    # The device offers 8 cpu of consumable capacity, but the node has 3: three 1-cpu replicas, not eight.
    docs = [_node("3"), _class(), _slice([_cpu_numa()])]
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(docs))
    workload = tmp_path / "one.yaml"
    workload.write_text(yaml.safe_dump_all([_template("one", _cpus("1")), _pod("one", "one")]))
    inputs = lib.load([str(cluster)], release=lib.profile("1.37", GATE))
    result = lib.capacity(inputs, str(workload))
    assert result.replicas == 3
    assert "Insufficient cpu" in result.message


def test_report_lists_what_each_replica_takes_of_its_node(tmp_path: Path) -> None:
    from drasim.report.data import collect

    docs = [_node("8"), _class(), _slice([_cpu_numa()]), _template("two", _cpus("2")),
            {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"}, "spec": {
                "replicas": 2, "selector": {"matchLabels": {"app": "w"}},
                "template": {"metadata": {"labels": {"app": "w"}}, "spec": _pod("x", "two")["spec"]}}}]
    sim = _run(tmp_path, docs)
    (view,) = collect(sim.result, explain=False).workloads
    assert [r.devices for r in view.listed] == ["worker/numa-0 (node cpu 2)"] * 2  # pool/device


def test_k8s_website_cpu_slice_at_1_36(tmp_path: Path) -> None:
    # how-dra-works: two 128-cpu sockets mapped through capacityKey (allocationMultiplier defaults to 1). The
    # node has 150 cpu: one 100-cpu claim fits, the second is Insufficient cpu although the sockets have room.
    (slice_,) = yaml.safe_load_all((WEBSITE / "how-dra-works--cpu-node-allocatable-slice.yaml").read_text())
    for dev in slice_["spec"]["devices"]:  # the page writes `capacity: {key: "128"}`, which no decoder takes
        dev["capacity"] = {k: {"value": v} for k, v in dev["capacity"].items()}
    node = _node("150")
    node["metadata"]["name"] = "my-node"
    docs = [node, _class(), slice_, _template("hundred", _cpus("100")), _pod("a", "hundred"), _pod("b", "hundred")]
    sim = _run(tmp_path, docs, version="1.36")
    pods = _pods(sim)
    assert pods["a"].status == "Running" and pods["b"].status == "Pending"
    (st_,) = _status(sim, "a")
    assert {k: str(v) for k, v in (st_.resources or {}).items()} == {"cpu": "100"}
    assert pods["b"].reason.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_explain_names_the_mapped_claim_another_pod_holds(tmp_path: Path) -> None:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared"},
             "spec": {"devices": {"requests": [{"name": "req", "exactly": _cpus("1")}]}}}
    docs: list[dict[str, Any]] = [_node("3"), _class(), _slice([_cpu_numa()]), claim]
    for name in ("first", "second"):
        pod = _pod(name)
        pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "devs"}]
        pod["spec"]["resourceClaims"] = [{"name": "devs", "resourceClaimName": "shared"}]
        docs.append(pod)
    result = _explain(tmp_path, docs, "pod/second")
    assert ("worker: DynamicResources: node allocatable resource claim shared has a mapped device and cannot be "
            "shared across pods") in result.output


def _decoded(docs: list[dict[str, Any]]) -> list[Any]:
    from drasim.api.decode import decode_object

    return [decode_object(d, source="test") for d in docs]


@settings(max_examples=examples(25), deadline=None)
@given(node_cpu=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       pods=st.lists(st.tuples(st.integers(1, 3), st.sampled_from([None, "500m"])), min_size=1, max_size=8))
def test_a_node_is_never_charged_past_its_allocatable(node_cpu: list[int], pods: list[tuple[int, str | None]]
                                                       ) -> None:
    # The invariant Filter keeps: on every node, the pods' own cpu plus what their claims charge stays within
    # allocatable; a pod left Pending did not fit anywhere.
    from drasim.scheduler.resources import pod_requests
    from drasim.sim.engine import simulate as run
    from drasim.sim.settle import simulation_options

    docs: list[dict[str, Any]] = [_class()]
    for i, cpu in enumerate(node_cpu):
        nd = _node(str(cpu))
        nd["metadata"]["name"] = f"n{i}"
        sl = _slice([_cpu_numa("16")])
        sl["metadata"]["name"] = f"n{i}-cpu"
        sl["spec"]["nodeName"] = f"n{i}"
        sl["spec"]["pool"]["name"] = f"n{i}"
        docs += [nd, sl]
    for k in {k for k, _own in pods}:
        docs.append(_template(f"cpus-{k}", _cpus(str(k))))
    for j, (k, own) in enumerate(pods):
        docs.append(_pod(f"p{j}", f"cpus-{k}", cpu=own))
    result = run(_decoded(docs), [], simulation_options(lib.profile("1.37", GATE)))
    state = result.state
    used: dict[str, int] = {}
    for pod in state.pods.values():
        if pod.spec.node_name:
            used[pod.spec.node_name] = used.get(pod.spec.node_name, 0) + pod_requests(pod).get("cpu", 0)
    for i, cpu in enumerate(node_cpu):
        assert used.get(f"n{i}", 0) <= cpu * 1000
    for j, (k, own) in enumerate(pods):
        pod = state.pods[("default", f"p{j}")]
        if not pod.spec.node_name:
            demand = k * 1000 + (500 if own else 0)
            assert all(demand > cpu * 1000 - used.get(f"n{i}", 0) for i, cpu in enumerate(node_cpu))


def test_explain_traces_node_resources_fit_to_the_claims_of_the_nodes_pods(tmp_path: Path) -> None:
    # A pod without claims: NodeResourcesFit's Insufficient cpu, of which the bound pod's claim holds 2.
    docs = [_node("3"), _class(), _slice([_cpu_numa()]), _template("two", _cpus("2")), _pod("a", "two"),
            _pod("plain", cpu="2")]
    result = _explain(tmp_path, docs, "pod/plain")
    assert ("worker: NodeResourcesFit: Insufficient cpu: claims of its pods take 2 cpu of the node "
            "(default/a claim a-devs-") in result.output
