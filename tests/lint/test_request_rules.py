"""lint's request-level rules and pod-pending on public manifests and generated fleets: each example of issue #25
gets a finding naming the object, the field and the reason; a clean fleet and workload get none.

Sources: tests/realworld (the NVIDIA DRA driver's "allocating GPUs" guide, hopper-80g-gpu); the Intel GPU /
Gaudi and AMD GPU slices below are written for these tests after the shapes those drivers publish (driver
`gpu.intel.com` with `family`/`model`, `gaudi.intel.com` with `model`, `gpu.amd.com` partitions with
`parentDeviceID`); NVIDIA fleets come from `drasim fleet` (the bundled catalog)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from drasim.cli.explain import explain
from drasim.cli.fleet import fleet
from drasim.cli.lint import lint
from drasim.demo import demo_paths

REAL = Path(__file__).resolve().parents[1] / "realworld"
GUIDE = REAL / "dra-driver-nvidia-gpu" / "site"


def _fleet(tmp_path: Path, *specs: str) -> str:
    out = tmp_path / "fleet"
    args = [a for s in specs for a in ("--nodes", s)]
    result = CliRunner().invoke(fleet, [*args, "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    return str(out)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return str(path)


def _lint(*paths: str) -> tuple[int, list[dict[str, Any]]]:
    args = [a for p in paths for a in ("-f", p)]
    result = CliRunner().invoke(lint, [*args, "-o", "json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)["diagnostics"]


def _of(diagnostics: list[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    return [d for d in diagnostics if d["code"] == code]


def _hopper_namespace(tmp_path: Path) -> str:
    return _write(tmp_path, "ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: gpu-example}\n")


# --- request-matches-nothing --------------------------------------------------------------------------


def test_hopper_80g_guide_matches_no_h100(tmp_path: Path) -> None:
    """NVIDIA's guide asks for more than 80Gi; every H100 80GB publishes 81559Mi (less than 80Gi)."""
    code, found = _lint(_fleet(tmp_path, "h100:2"),
                        str(GUIDE / "allocating-gpus--10-resourceclaimtemplate-hopper-80g-gpu.yaml"),
                        str(GUIDE / "allocating-gpus--11-pod-hopper-80g-pod.yaml"))
    assert code == 1
    (miss,) = _of(found, "request-matches-nothing")
    assert miss["severity"] == "error"
    assert miss["object"] == {"kind": "ResourceClaimTemplate", "namespace": "gpu-example", "name": "hopper-80g-gpu"}
    assert miss["field"] == "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"
    # The architecture test passes on every H100: only the memory comparison is named.
    words = "16 gpu.nvidia.com devices have memory (capacity) 81559Mi; the selector needs more than 80Gi"
    assert words in miss["message"]
    assert "architecture" not in miss["message"]
    (pending,) = _of(found, "pod-pending")
    assert pending["object"]["name"] == "hopper-80g-pod"
    assert "request selector false" in pending["message"]


def _slice(node: str, driver: str, pool: str, devices: str) -> str:
    """One ResourceSlice of `driver` for `node` (devices: YAML list items)."""
    items = textwrap.indent(textwrap.dedent(devices).strip("\n"), "  ")
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: {node}-{driver}}}\nspec:\n"
            f"  driver: {driver}\n  nodeName: {node}\n  pool: {{name: {pool}, resourceSliceCount: 1}}\n"
            f"  devices:\n{items}\n---\n")


def _class(driver: str, extra: str = "") -> str:
    """The DeviceClass drivers publish for themselves: every device of `driver`."""
    return (f"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: {driver}}}\nspec:\n"
            f"  selectors:\n  - cel: {{expression: device.driver == \"{driver}\"}}\n{extra}---\n")


FLEX = "attributes: {family: {string: Data Center Flex}, model: {string: Data Center Flex 170}}"
INTEL_NODE = """
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "32", memory: 128Gi, pods: "110"}}
"""
INTEL_GPU_SLICE = (
    _slice("node-a", "gpu.intel.com", "node-a", f"- {{name: card0, {FLEX}}}\n- {{name: card1, {FLEX}}}")
    + _slice("node-a", "gaudi.intel.com", "node-a-gaudi",
             "- {name: accel0, attributes: {model: {string: Gaudi2}, serial: {string: AM0001}}}")
    + _class("gpu.intel.com") + _class("gaudi.intel.com") + INTEL_NODE
)


def _template(name: str, devices: str) -> str:
    """A ResourceClaimTemplate in namespace default whose `spec.spec.devices` is `devices` (YAML)."""
    body = textwrap.indent(textwrap.dedent(devices).strip("\n"), "      ")
    return (f"apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: {name}, namespace: "
            f"default}}\nspec:\n  spec:\n    devices:\n{body}\n")


def _selecting(class_name: str, expression: str) -> str:
    return f"""
    requests:
    - name: accel
      exactly:
        deviceClassName: {class_name}
        selectors:
        - cel: {{expression: '{expression}'}}
    """


@pytest.mark.parametrize(("class_name", "expression", "words"), [
    ("gpu.intel.com", 'device.attributes["gpu.intel.com"].family == "Flex"',
     '2 gpu.intel.com devices have family "Data Center Flex"; the selector needs "Flex"'),
    ("gaudi.intel.com", 'device.attributes["gaudi.intel.com"].model == "Gaudi3"',
     '1 gaudi.intel.com device has model "Gaudi2"; the selector needs "Gaudi3"'),
])
def test_attribute_value_no_device_publishes(tmp_path: Path, class_name: str, expression: str, words: str) -> None:
    fleet_file = _write(tmp_path, "intel.yaml", INTEL_GPU_SLICE)
    code, found = _lint(fleet_file, _write(tmp_path, "t.yaml", _template("t", _selecting(class_name, expression))))
    assert code == 1
    (miss,) = _of(found, "request-matches-nothing")
    assert words in miss["message"], miss["message"]
    assert miss["field"] == "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"


def test_one_dead_alternative_is_a_warning_all_dead_an_error(tmp_path: Path) -> None:
    fleet_file = _write(tmp_path, "intel.yaml", INTEL_GPU_SLICE)
    template = _template("t", """
    requests:
    - name: accel
      firstAvailable:
      - name: gaudi3
        deviceClassName: gaudi.intel.com
        selectors: [{cel: {expression: 'device.attributes["gaudi.intel.com"].model == "Gaudi3"'}}]
      - {name: any-gaudi, deviceClassName: gaudi.intel.com}
    """)
    code, found = _lint(fleet_file, _write(tmp_path, "t.yaml", template))
    (miss,) = _of(found, "request-matches-nothing")
    assert (code, miss["severity"]) == (0, "warning")
    assert miss["field"] == "spec.spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression"
    assert "falls through to the next" in miss["message"]


# --- device-class-not-found ----------------------------------------------------------------------------


def test_class_name_naming_nothing_also_inside_first_available(tmp_path: Path) -> None:
    template = _template("t", """
    requests:
    - name: gpu
      firstAvailable:
      - {name: h100, deviceClassName: gpu.nvidia.com}
      - {name: mig, deviceClassName: mig.nvidia}
    """)
    code, found = _lint(_fleet(tmp_path, "h100:1"), _write(tmp_path, "t.yaml", template))
    assert code == 1
    (missing,) = _of(found, "device-class-not-found")
    assert missing["field"] == "spec.spec.devices.requests[0].firstAvailable[1].deviceClassName"
    assert 'DeviceClass "mig.nvidia" does not exist (did you mean mig.nvidia.com' in missing["message"]


# --- constraint-attribute-missing -----------------------------------------------------------------------


def test_match_attribute_mig_partitions_do_not_publish(tmp_path: Path) -> None:
    """MIG devices publish parentUUID, not uuid: matchAttribute uuid rejects every one of them."""
    template = _template("mig-pair", """
    requests:
    - {name: a, exactly: {deviceClassName: mig.nvidia.com}}
    - {name: b, exactly: {deviceClassName: mig.nvidia.com}}
    constraints:
    - {requests: [a, b], matchAttribute: gpu.nvidia.com/uuid}
    """)
    code, found = _lint(_fleet(tmp_path, "a100-40gb:mig-dynamic:1"), _write(tmp_path, "t.yaml", template))
    assert code == 1
    found_c = _of(found, "constraint-attribute-missing")
    assert {d["field"] for d in found_c} == {"spec.spec.devices.constraints[0].matchAttribute"}
    assert "(they publish parentUUID)" in found_c[0]["message"]


PARTITION = "attributes: {type: {string: amdgpu-partition}, parentDeviceID: {string: '74a5'}}"
AMD_SLICE = _slice("node-b", "gpu.amd.com", "node-b", f"- {{name: gpu-0-partition-0, {PARTITION}}}\n"
                   f"- {{name: gpu-0-partition-1, {PARTITION}}}") + _class("gpu.amd.com")


def test_match_attribute_amd_partitions_publish_parent_device_id(tmp_path: Path) -> None:
    claim = """
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: two-partitions, namespace: default}
    spec:
      devices:
        requests:
        - {name: gpus, exactly: {deviceClassName: gpu.amd.com, count: 2}}
        constraints:
        - {matchAttribute: gpu.amd.com/deviceID}
    """
    _, found = _lint(_write(tmp_path, "amd.yaml", AMD_SLICE), _write(tmp_path, "c.yaml", claim))
    (miss,) = _of(found, "constraint-attribute-missing")
    assert miss["object"]["name"] == "two-partitions" and miss["field"] == "spec.devices.constraints[0].matchAttribute"
    assert 'matchAttribute "gpu.amd.com/deviceID" applies to request "gpus"' in miss["message"]
    assert "(they publish parentDeviceID)" in miss["message"]


# --- extended resources ---------------------------------------------------------------------------------


POD_INTEL_GPU = """
apiVersion: v1
kind: Pod
metadata: {name: legacy, namespace: default}
spec:
  containers:
  - name: c
    image: busybox
    resources: {limits: {gpu.intel.com/i915: 1}}
"""


def test_extended_resource_nothing_backs(tmp_path: Path) -> None:
    fleet_file = _write(tmp_path, "intel.yaml", INTEL_GPU_SLICE)
    code, found = _lint(fleet_file, _write(tmp_path, "pod.yaml", POD_INTEL_GPU))
    assert code == 1
    (unbacked,) = _of(found, "extended-resource-unbacked")
    # Admission fills requests from limits (as the API server does), so the finding names the request.
    assert unbacked["field"] == "spec.containers[0].resources.requests[gpu.intel.com/i915]"
    (pending,) = _of(found, "pod-pending")
    assert "Insufficient gpu.intel.com/i915" in pending["message"]
    assert "no node advertises extended resource gpu.intel.com/i915" in pending["message"]  # explain's hint


def test_extended_resource_a_class_maps_is_backed(tmp_path: Path) -> None:
    mapped = INTEL_GPU_SLICE.replace(_class("gpu.intel.com"),
                                     _class("gpu.intel.com", "  extendedResourceName: gpu.intel.com/i915\n"))
    _, found = _lint(_write(tmp_path, "intel.yaml", mapped), _write(tmp_path, "pod.yaml", POD_INTEL_GPU))
    assert not _of(found, "extended-resource-unbacked")


def test_explain_names_the_unbacked_extended_resource(tmp_path: Path) -> None:
    fleet_file = _write(tmp_path, "intel.yaml", INTEL_GPU_SLICE)
    pod = _write(tmp_path, "p.yaml", POD_INTEL_GPU)
    result = CliRunner().invoke(explain, ["pod/legacy", "-f", fleet_file, "-f", pod, "-o", "json"])
    assert "extended-resource-unbacked" in result.output, result.output


# --- pod-pending and explain: an All-mode claim taking what another claim needs ----------------------------


JOB = _template("one-gpu", "requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]") + """---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: all-gpus, namespace: default}
spec:
  devices:
    requests: [{name: all, exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: default}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x}]
      resourceClaims:
      - {name: shared, resourceClaimName: all-gpus}
      - {name: own, resourceClaimTemplateName: one-gpu}
"""


def test_all_mode_claim_takes_what_the_template_claim_needs(tmp_path: Path) -> None:
    fleet_dir = _fleet(tmp_path, "h100:1")
    job = _write(tmp_path, "job.yaml", JOB)
    code, found = _lint(fleet_dir, job)
    assert code == 1
    (pending,) = _of(found, "pod-pending")
    assert pending["object"] == {"kind": "Job", "namespace": "default", "name": "train"}
    assert "2 of 2 pods" in pending["message"]
    assert "request all of claim default/all-gpus has allocationMode All" in pending["message"]
    result = CliRunner().invoke(explain, ["pods", "-A", "-f", fleet_dir, "-f", job])
    assert "all-mode-takes-devices" in result.output or "allocationMode All" in result.output, result.output


# --- clean inputs and skipped rules -----------------------------------------------------------------------


def test_clean_fleet_and_workload_report_nothing(tmp_path: Path) -> None:
    template = GUIDE / "allocating-gpus--02-resourceclaimtemplate-single-gpu.yaml"
    pod = GUIDE / "allocating-gpus--03-pod-gpu-pod.yaml"
    # The guide's objects live in namespace gpu-example; the H100 fleet has no MIG devices, so only H100 classes.
    code, found = _lint(_fleet(tmp_path, "h100:1"), str(template), str(pod))
    assert code == 0
    assert [d for d in found if d["code"] != "class-matches-nothing"] == []


def test_without_slices_or_nodes_the_rules_say_they_were_skipped(tmp_path: Path) -> None:
    template = str(GUIDE / "allocating-gpus--10-resourceclaimtemplate-hopper-80g-gpu.yaml")
    pod = str(GUIDE / "allocating-gpus--11-pod-hopper-80g-pod.yaml")
    code, found = _lint(template, pod)
    assert code == 0
    notes = {d["code"]: d for d in found if d["severity"] == "info"}
    assert set(notes) == {"request-matches-nothing", "device-class-not-found", "pod-pending"}
    assert all(d["message"].startswith("skipped: ") for d in notes.values())
    assert [d for d in found if d["severity"] != "info"] == []
    text = CliRunner().invoke(lint, ["-f", template, "-f", pod]).output
    assert "No problems found." in text and "note: request-matches-nothing skipped: no ResourceSlices" in text


def test_replicas_on_a_lower_alternative_while_a_higher_was_feasible(tmp_path: Path) -> None:
    """README's prioritized-list story: the demo's `inference` Deployment on 2 H100 + 2 A100 nodes."""
    workloads = next(p for p in demo_paths() if p.endswith("workloads.yaml"))
    code, found = _lint(_fleet(tmp_path, "h100:2", "a100-80gb:2"), workloads)
    assert code == 1  # the demo's MIG pods find no MIG node in this fleet (pod-pending)
    (fallback,) = _of(found, "first-available-fallback")
    assert fallback["severity"] == "warning"
    assert fallback["object"] == {"kind": "Deployment", "namespace": "default", "name": "inference"}
    assert "of 11 pod(s) took a lower firstAvailable alternative" in fallback["message"]
    assert "gpu/a100-pair on a100-sxm4-80gb-" in fallback["message"]
    assert "while h100-80gb-hbm3-" in fallback["message"]


def test_capacity_no_selected_device_can_give(tmp_path: Path) -> None:
    """The allocator's capacity check on idle devices: 32Gi of memory from 16Gi Flex GPUs never fits."""
    shared = INTEL_GPU_SLICE.replace("card0, attributes", "card0, allowMultipleAllocations: true, "
                                     "capacity: {memory: {value: 16Gi}}, attributes")
    template = _template("t", """
    requests:
    - name: accel
      exactly:
        deviceClassName: gpu.intel.com
        capacity: {requests: {memory: 32Gi}}
    """)
    _, found = _lint(_write(tmp_path, "intel.yaml", shared), _write(tmp_path, "t.yaml", template))
    (miss,) = _of(found, "request-matches-nothing")
    assert miss["field"] == "spec.spec.devices.requests[0].exactly.capacity.requests"
    assert "cannot give the capacity it requests even when idle" in miss["message"], miss["message"]
