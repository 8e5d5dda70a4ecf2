"""The 1.37 allocator (`--kubernetes-version 1.37`): config covering every request, CEL runtime error texts."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from drasim import releases
from drasim.allocator.versions import features_for_version
from drasim.cli.scenarios import load_scenario_input
from drasim.runner.scenario import run_scenario

ROOT = Path(__file__).resolve().parents[1] / "conformance"
V136 = ROOT / "upstream-v1.36"


def _run(name: str, release: str) -> dict[str, Any]:
    sc, _ = load_scenario_input(str(V136 / name))
    sc.features = dataclasses.replace(sc.features, release=release)
    return run_scenario(sc)["steps"][0]


def _configs(step: dict[str, Any]) -> list[tuple[str, list[str]]]:
    return [(c["source"], c.get("requests", [])) for c in step["results"][0].get("config", [])]


@pytest.mark.parametrize("name,v136,v137", [
    # allocator_testing.go TestAllocator "with-class-device-config": requests [req-0] (1.36) -> nil (1.37).
    ("TestAllocator_with-class-device-config.yaml", [("FromClass", ["req-0"])], [("FromClass", [])]),
    # "prioritized-list-device-config": the chosen subrequest's config covers req-0 -> nil in 1.37.
    ("TestAllocator_prioritized-list-device-config.yaml", [("FromClaim", ["req-0/subReq-1"])],
     [("FromClaim", [])]),
    # "prioritized-list-class-config": the class config names the only request -> nil in 1.37.
    ("TestAllocator_prioritized-list-class-config.yaml", None, None),
    # "with-class-device-config-with-multiple-request-and-configs": neither entry covers all three requests.
    ("TestAllocator_with-class-device-config-with-multiple-request-and-configs.yaml",
     [("FromClass", ["req-0", "req-1"]), ("FromClass", ["req-2"])],
     [("FromClass", ["req-0", "req-1"]), ("FromClass", ["req-2"])]),
    # "claim-with-device-config": a config without requests stays empty in both.
    ("TestAllocator_claim-with-device-config.yaml", [("FromClaim", [])], [("FromClaim", [])]),
])
def test_config_covering_every_request_is_cleared_in_137(name: str, v136: list[Any] | None,
                                                          v137: list[Any] | None) -> None:
    """Upstream allocator_testing.go TestAllocator cases named in the parameters (1.37 expectations)."""
    old, new = _configs(_run(name, "1.36")), _configs(_run(name, "1.37"))
    if v136 is None:
        assert all(reqs for _s, reqs in old) and all(not reqs for _s, reqs in new)
    else:
        assert (old, new) == (v136, v137)


def test_claim_config_covering_all_requests_is_cleared() -> None:
    """Upstream TestAllocator "claim-config-covering-all-requests-is-cleared" (1.37) and its variant
    "claim-config-scoped-to-subrequests-of-one-request" (kept)."""
    text = (V136 / "TestAllocator_prioritized-list-device-config.yaml").read_text()
    import yaml
    doc = yaml.safe_load(text)
    doc.pop("expect")
    claim = next(o for o in doc["objects"] if o["kind"] == "ResourceClaim")
    doc["objects"] = [o for o in doc["objects"] if o["kind"] != "ResourceSlice"] + [{
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "slice-1"},
        "spec": {"driver": "driver-a", "nodeName": "node-1", "pool": {"name": "pool-1", "generation": 1,
                                                                      "resourceSliceCount": 1},
                 "devices": [{"name": "device-0"}, {"name": "device-1"}]}}]
    claim["spec"]["devices"]["requests"].append(
        {"name": "req-1", "exactly": {"deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 1}})
    claim["spec"]["devices"]["requests"][0]["firstAvailable"][1]["count"] = 1

    def configs(requests: list[str], version: str) -> list[Any]:
        claim["spec"]["devices"]["config"] = [{"requests": requests, "opaque": {"driver": "driver-a",
                                                                                "parameters": {"all": True}}}]
        proc = subprocess.run([sys.executable, "-m", "drasim.cli.main", "allocate", "--kubernetes-version",
                               version, "-"], input=yaml.safe_dump(doc), capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)["steps"][0]["results"][0]
        assert [d["request"] for d in result["devices"]] == ["req-0/subReq-0", "req-1"]
        return [c.get("requests", []) for c in result["config"]]

    assert configs(["req-0/subReq-0", "req-1"], "1.37") == [[]]
    # 1.36 appends a claim config once per request it names (here twice) and never clears it.
    assert configs(["req-0/subReq-0", "req-1"], "1.36") == [["req-0/subReq-0", "req-1"]] * 2
    assert configs(["req-0/subReq-0", "req-0/subReq-1"], "1.37") == [["req-0/subReq-0", "req-0/subReq-1"]]


def test_enhance_runtime_error_hint() -> None:
    """Upstream dynamic-resource-allocation cel TestEnhanceRuntimeError: "no such key error gets enhanced with
    usage hint", "wrapped no such key error gets enhanced", "other error is returned unchanged"."""
    hint = releases.NO_SUCH_KEY_HINT
    assert releases.cel_runtime_error("1.37", "class c", 0, "d/p/x", "no such key: sharingStrategy").endswith(
        "CEL runtime error: no such key: sharingStrategy" + hint)
    assert releases.cel_runtime_error("1.37", "class c", 0, "d/p/x", "context: no such key: fieldY").endswith(
        "context: no such key: fieldY" + hint)
    assert releases.cel_runtime_error("1.37", "class c", 0, "d/p/x", "some other error").endswith(
        ": some other error")
    assert releases.cel_runtime_error("1.36", "class c", 0, "d/p/x", "no such key: a") == \
        "class c: selector #0: CEL runtime error: no such key: a"


def test_137_runtime_error_names_the_device() -> None:
    """dynamicresources_test.go "class-parameters-CEL-runtime-error" / "claim-parameters-CEL-runtime-error":
    1.36 says `class ...: selector #0: CEL runtime error: no such key: ...`; 1.37 names the device and hints."""
    name = "TestAllocator_all-devices-invalid-CEL.yaml"
    sc, expect = load_scenario_input(str(V136 / name))
    if "runtime" not in json.dumps(expect):
        name = next(p.name for p in sorted(ROOT.rglob("*.yaml")) if "no such key" in p.read_text())
        sc, expect = load_scenario_input(str(next(ROOT.rglob(name))))
    old = run_scenario(sc)["steps"]
    sc.features = dataclasses.replace(sc.features, release="1.37")
    new = run_scenario(sc)["steps"]
    errors = [(a["error"], b["error"]) for a, b in zip(old, new, strict=True) if a.get("status") == "error"]
    assert errors
    for a, b in errors:
        who, _, rest = a.partition(": selector #0: CEL runtime error: ")
        assert rest.startswith("no such key: ")
        assert b.startswith(f"{who}: selector #0 on device ")
        assert b.endswith(f": CEL runtime error: {rest}{releases.NO_SUCH_KEY_HINT}")


def test_kubernetes_version_keeps_the_files_own_features() -> None:
    """An explicit --kubernetes-version sets the release's defaults only for flags the file leaves unset."""
    path = V136 / "TestAllocator_prioritized-list-device-config.yaml"  # sets every flag, PrioritizedList on
    for version in ("1.34", "1.36", "1.37"):
        proc = subprocess.run([sys.executable, "-m", "drasim.cli.main", "allocate", "--check", "-o", "json",
                               "--kubernetes-version", version, str(path)], capture_output=True, text=True,
                              timeout=120)
        assert json.loads(proc.stdout)["features"] == ["PrioritizedList"], version
    assert features_for_version("1.37").release == "1.37"
    for path in sorted(V136.glob("*.yaml")):
        if "features:" not in path.read_text():
            continue
        proc = subprocess.run([sys.executable, "-m", "drasim.cli.main", "allocate", "--check",
                               "--kubernetes-version", "1.36", str(path)], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        break


def test_counter_slice_for_another_node_joins_through_completeness() -> None:
    """allocator_testing.go "partitionable-devices-devices-consume-counter-set-in-different-nodes" (1.37,
    V24): the counter set is published for node-1 only, devices sit on node-1 and node-2, device-1 (6Gi of
    8Gi) is allocated; on node-2 the request gets device-3 (2Gi). 1.36 takes the counter slice as relevant
    everywhere; 1.37 selects it like any slice and pulls it in as a slice not targeting node-2."""
    import msgspec

    from drasim.allocator import AllocatedState, Allocator, DeviceID
    from drasim.allocator.cache import SliceCache
    from drasim.api.core import Node
    from drasim.api.quantity import quantity_dec_hook
    from drasim.api.resource import DeviceClass, ResourceClaim, ResourceSlice

    def build(tp: type, data: dict[str, Any]) -> Any:
        return msgspec.convert(data, type=tp, dec_hook=quantity_dec_hook)

    pool = {"name": "pool-1", "generation": 1, "resourceSliceCount": 3}

    def consumer(name: str, gib: int) -> dict[str, Any]:
        return {"name": name, "consumesCounters": [{"counterSet": "counter-set-1",
                                                   "counters": {"memory": {"value": f"{gib}Gi"}}}]}

    region = {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "region", "operator": "In", "values": ["region-1"]}]}]}
    slices = [
        build(ResourceSlice, {"metadata": {"name": "slice-1"}, "spec": {
            "driver": "driver-a", "pool": pool, "nodeSelector": region,
            "sharedCounters": [{"name": "counter-set-1", "counters": {"memory": {"value": "8Gi"}}}]}}),
        build(ResourceSlice, {"metadata": {"name": "slice-2"}, "spec": {
            "driver": "driver-a", "pool": pool, "nodeName": "node-1", "devices": [consumer("device-1", 6)]}}),
        build(ResourceSlice, {"metadata": {"name": "slice-3"}, "spec": {
            "driver": "driver-a", "pool": pool, "nodeName": "node-2",
            "devices": [consumer("device-2", 6), consumer("device-3", 2)]}}),
    ]
    classes = {"class-a": build(DeviceClass, {"metadata": {"name": "class-a"}, "spec": {}})}
    claim = build(ResourceClaim, {"metadata": {"name": "claim-0", "namespace": "default"}, "spec": {"devices": {
        "requests": [{"name": "req-0", "exactly": {"deviceClassName": "class-a", "allocationMode": "ExactCount",
                                                   "count": 1}}]}}})
    node = build(Node, {"metadata": {"name": "node-2", "labels": {"region": "region-2"}}})
    for release in ("1.36", "1.37"):
        features = dataclasses.replace(features_for_version("1.36"), release=release)
        state = AllocatedState(devices={DeviceID("driver-a", "pool-1", "device-1")})
        cache = SliceCache(slices)
        results = Allocator(features, state, classes, cache).allocate(node, [claim])
        assert results is not None
        assert [r.device for r in results[0].devices.results] == ["device-3"], release
        (gathered,) = cache.view(node, features).pools
        joined = sorted(s.metadata.name for s in gathered.other_slices)
        assert joined == (["slice-2"] if release == "1.36" else ["slice-1", "slice-2"]), release


# --- list attributes with DRAListTypeAttributes off (k8s.io/dynamic-resource-allocation commit 5afedd9,
# kubernetes#139395; the newest 1.37 revision read: master 3d03671, 2026-07-01) ---------------------------

@pytest.mark.parametrize("name", [
    "TestAllocator_list-attributes-disabled-match-constraint-with-lists.yaml",
    "TestAllocator_list-attributes-disabled-distinct-constraint-with-lists.yaml",
])
def test_list_attributes_with_the_gate_off(name: str) -> None:
    """allocator_testing.go at 5afedd9: these two cases went from `expectError: unsupported attribute value`
    (1.36) to `expectResults: nil` (the class selector reads the devices; the constraint, without the gate,
    cannot compare list values, so no second device joins)."""
    old, new = _run(name, "1.36"), _run(name, "1.37")
    assert old["status"] == "error" and old["error"].endswith("unsupported attribute value")
    assert new["status"] == "unsatisfiable" and "error" not in new


def _device(attrs: dict[str, Any]) -> Any:
    import msgspec

    from drasim.api.quantity import quantity_dec_hook
    from drasim.api.resource import Device
    return msgspec.convert({"name": "d", "attributes": attrs}, type=Device, dec_hook=quantity_dec_hook)


def _evaluate(expression: str, attrs: dict[str, Any], release: str, gate: bool) -> Any:
    from drasim.cel import compile_selector, device_input, stored_environment
    outcome = compile_selector(expression, stored_environment(release, gate)).evaluate(
        device_input("dra.example.com", _device(attrs)))
    return getattr(outcome, "message", outcome)


_ATTR = 'device.attributes["dra.example.com"]'


@pytest.mark.parametrize("gate", [False, True])
@pytest.mark.parametrize("expression,attrs,outcome", [
    # cel/compile_test.go at 5afedd9, cases run in the stored environment with the gate off and on:
    ("list-of-int", {"names": {"ints": [1, 2]}}, True),
    ("list-of-bool", {"names": {"bools": [True, False]}}, True),
    ("list-of-string", {"names": {"strings": ["fish", "bird"]}}, True),
    ("list-of-semver", {"names": {"versions": ["1.0.0", "2.0.0"]}}, True),
    (f"{_ATTR}.names.exists(x, x > 0)", {"names": {"ints": [1, 2]}}, True),  # macro-on-list-of-int
    (f'{_ATTR}.names.all(x, x != "")', {"names": {"strings": ["fish", "bird"]}}, True),
    (f'{_ATTR}.names.all(x, x.isGreaterThan(semver("0.0.1")))', {"names": {"versions": ["1.0.0", "2.0.0"]}},
     True),
    (f'{_ATTR}.name.includes("fish")', {"name": {"strings": ["fish", "bird"]}}, True),  # includes-...-evaluate
    (f"{_ATTR}.name.includes(false)", {"name": {"bools": [True, True]}}, False),
    (f"{_ATTR}.names", {"names": {"strings": ["fish", "bird"]}},
     "CEL result of type list could not be converted to bool"),  # list-result-type-causes-match-error
    (f"{_ATTR}.name.exists(x, x > 0)", {"name": {"int": 1}}, "got 'types.Int', expected iterable type"),
])
def test_137_stored_environment_reads_lists(expression: str, attrs: dict[str, Any], outcome: Any,
                                            gate: bool) -> None:
    if expression.startswith("list-of-"):
        expression = f"{_ATTR}.names.size() == 2"
    got = _evaluate(expression, attrs, "1.37", gate)
    assert got == outcome if isinstance(outcome, bool) else str(got).startswith(outcome)


def test_136_stored_environment_refuses_lists_with_the_gate_off() -> None:
    """v0.36.2 compile_test.go "attribute-access-causes-match-error", and the 1.36 attribute type `any`,
    which comprehensions cannot range over."""
    from drasim.cel import CelCompileError
    names = {"names": {"strings": ["fish", "bird"]}}
    assert _evaluate(f"{_ATTR}.names", names, "1.36", False) == "attribute names: unsupported attribute value"
    assert _evaluate(f"{_ATTR}.names.size() == 2", names, "1.36", True) is True
    with pytest.raises(CelCompileError, match="cannot be the range of a comprehension"):
        _evaluate(f'{_ATTR}.names.all(x, x != "")', names, "1.36", False)


@pytest.mark.parametrize("consumable,lists", [(False, False), (True, False), (False, True), (True, True)])
def test_feature_combinations(consumable: bool, lists: bool) -> None:
    """cel/compile_test.go TestCELFeatureCombinations at 5afedd9: the stored environment (the allocator's, 1.37)
    compiles every expression whatever the gates; the new-expressions environment (API validation, unchanged)
    only what the gates declare."""
    from drasim.cel import CelCompileError, CelEnvironment, compile_selector, stored_environment
    expressions = {
        f"{_ATTR}.ready": True,
        f"{_ATTR}.ids.exists(id, id == 1)": lists,
        f'{_ATTR}.name.includes("fish")': lists,
        "device.allowMultipleAllocations": consumable,
        f"device.allowMultipleAllocations && {_ATTR}.ids.exists(id, id == 1)": lists and consumable,
    }
    validation = CelEnvironment(consumable_capacity=consumable, list_type_attributes=lists, stored=False)

    def compiles(expression: str, env: CelEnvironment) -> bool:
        try:
            compile_selector(expression, env)
        except CelCompileError:
            return False
        return True

    for expression, in_validation in expressions.items():
        assert compiles(expression, stored_environment("1.37", lists)), expression
        assert compiles(expression, validation) == in_validation, expression


def test_distinct_attribute_refuses_values_of_no_known_type() -> None:
    """incubating/experimental distinctAttributeConstraint.matchesAttribute: the first device always joins; after
    it, a value it cannot compare (a list without the gate, an empty attribute with it) never does."""
    from drasim.allocator.constraints import DistinctAttribute
    listed, empty = _device({"a": {"strings": ["x"]}}), _device({"a": {}})
    scalar, other = _device({"a": {"string": "x"}}), _device({"a": {"string": "y"}})
    off = DistinctAttribute([], "drv/a", list_types=False)
    assert off.add("r0", "", listed, "drv") and not off.add("r1", "", listed, "drv")
    assert off.add("r1", "", scalar, "drv") and off.add("r2", "", other, "drv")
    on = DistinctAttribute([], "drv/a", list_types=True)
    assert on.add("r0", "", empty, "drv") and not on.add("r1", "", empty, "drv")
    assert on.add("r1", "", _device({"a": {"strings": ["y", "z"]}}), "drv")
    assert not on.add("r2", "", _device({"a": {"strings": ["z"]}}), "drv")
