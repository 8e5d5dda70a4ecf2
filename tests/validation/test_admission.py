"""The release profile and the admission path every command uses, on the real files of issue #8."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drasim.allocator.versions import allocator_features
from drasim.api import resource as r
from drasim.api.core import Pod
from drasim.api.profile import GATES, RELEASES, SIMULATED, profile_for
from drasim.doctor.release import features_for
from drasim.errors import DrasimError
from drasim.lint.versions import LINT_VERSIONS, gate_on
from drasim.sources.inputs import read_inputs

REAL = Path(__file__).resolve().parent.parent / "realworld"
EXAMPLE = REAL / "dra-example-driver" / "demo" / "examples"
WEBSITE = REAL / "k8s-website" / "docs"
NVIDIA = REAL / "dra-driver-nvidia-gpu"


def errors(inputs: object) -> list[str]:
    return [f"{f.obj}: {f}" for _, f in inputs.admission.errors()]  # type: ignore[attr-defined]


def warnings(inputs: object) -> list[str]:
    return [f"{f.obj}: {f}" for _, f in inputs.admission.warnings()]  # type: ignore[attr-defined]


# --- the one table --------------------------------------------------------------------------------

def test_lint_doctor_and_validation_agree_on_every_release() -> None:
    for version in LINT_VERSIONS:
        doctor = {g.name: g.enabled for g in features_for(version)}
        for name in doctor:
            if name in GATES and name != "DynamicResourceAllocation":
                assert doctor[name] == gate_on(name, version) == profile_for(version, releases=RELEASES).gate(name)


def test_device_taint_rules_before_1_35_are_served_under_device_taints() -> None:
    # lint and doctor used to disagree here: 1.33/1.34 have no DRADeviceTaintRules gate of their own.
    assert profile_for("1.34").stage("DRADeviceTaintRules") == "-"
    assert profile_for("1.34").taint_rule_gate() == "DRADeviceTaints"
    assert profile_for("1.34", "DRADeviceTaints=true").validation_features().device_taint_rules


def test_overrides_reach_allocator_validation_and_scheduler() -> None:
    p = profile_for("1.35", "DRAPartitionableDevices=true,DRAExtendedResource=true")
    assert allocator_features(p).partitionable_devices
    assert not allocator_features(profile_for("1.35")).partitionable_devices
    assert p.validation_features().partitionable_devices and p.extended_resources
    assert not profile_for("1.35").extended_resources and profile_for("1.36").extended_resources


@pytest.mark.parametrize(("gates", "words"), [
    ("DRANoSuchGate=true", "unrecognized feature gate: DRANoSuchGate"),
    ("DRAListTypeAttributes=true", "unrecognized feature gate"),  # not in 1.35
    ("DRAAdminAccess=false", "locked to true"),  # GA and locked in 1.36
    ("DRAAdminAccess", "expected Name=true|false"),
])
def test_bad_feature_gates(gates: str, words: str) -> None:
    version = "1.35" if "ListType" in gates else "1.36"
    with pytest.raises(DrasimError, match=words):
        profile_for(version, gates)


@given(st.sampled_from(SIMULATED), st.dictionaries(st.sampled_from(sorted(GATES)), st.booleans(), max_size=4))
def test_allocator_features_follow_the_gates(version: str, gates: dict[str, bool]) -> None:
    try:
        p = profile_for(version, gates)
    except DrasimError:
        return
    f = allocator_features(p)
    assert f.prioritized_list == p.gate("DRAPrioritizedList")
    assert f.device_taints == p.gate("DRADeviceTaints")
    assert f.device_binding_and_status == (p.gate("DRADeviceBindingConditions")
                                           and p.gate("DRAResourceClaimDeviceStatus"))


# --- served versions ------------------------------------------------------------------------------

def test_v1alpha2_is_rejected_with_upstreams_message(tmp_path: Path) -> None:
    text = (WEBSITE / "dynamic-resource-allocation-v1.31--cats-example.yaml").read_text()
    fixed = tmp_path / "cats.yaml"
    fixed.write_text(text.replace("\u2013--", "---"))  # the page's typo (an en dash) breaks the YAML stream
    inputs = read_inputs([str(fixed)], profile_for())
    errs = errors(inputs)
    assert any('no matches for kind "ResourceClaimTemplate" in version "resource.k8s.io/v1alpha2"' in e for e in errs)
    assert any('no matches for kind "DeviceClass" in version "resource.k8s.io/v1alpha3"' in e for e in errs)
    assert not [o for o in inputs.objects if isinstance(o, r.ResourceClaimTemplate | r.DeviceClass)]


def test_removed_pod_claim_source_is_rejected() -> None:
    inputs = read_inputs([str(NVIDIA / "demo" / "specs" / "selectors" / "pods.yaml")], profile_for())
    errs = errors(inputs)
    assert errs and all(e.startswith("Pod/") for e in errs)
    assert any("spec.resourceClaims[0]: Invalid value: core.PodResourceClaim{Name:" in e
               and "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`" in e for e in errs)
    assert not [o for o in inputs.objects if isinstance(o, Pod)]


def test_v1beta1_is_read_with_a_warning() -> None:
    path = NVIDIA / "demo" / "specs" / "quickstart" / "v1beta1" / "gpu-test1.yaml"
    inputs = read_inputs([str(path)], profile_for("1.34"))
    assert not errors(inputs)
    assert any("resource.k8s.io/v1beta1 is not served by a default Kubernetes 1.34 API server" in w
               for w in warnings(inputs))
    assert all(o.api_version == "resource.k8s.io/v1" for o in inputs.objects if isinstance(o, r.ResourceClaimTemplate))


@pytest.mark.parametrize(("version", "gates", "admitted"), [
    ("1.34", None, False), ("1.35", None, False), ("1.36", None, False),
    ("1.36", "DRADeviceTaintRules=true", True), ("1.37", None, True),
])
def test_v1beta2_device_taint_rules_by_release(version: str, gates: str | None, admitted: bool) -> None:
    path = EXAMPLE / "device-taints-tolerations" / "device-taint-pod-noexecute" / "3-device-taint-rule.yaml"
    inputs = read_inputs([str(path)], profile_for(version, gates))
    assert bool([o for o in inputs.objects if isinstance(o, r.DeviceTaintRule)]) == admitted
    if not admitted:
        assert 'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta2"' in errors(inputs)[0]


# --- defaulting, validation, apply ---------------------------------------------------------------

def test_limits_are_copied_into_requests() -> None:
    path = NVIDIA / "demo" / "specs" / "extended-resources" / "gpu-full.yaml"
    (pod,) = [o for o in read_inputs([str(path)], profile_for()).objects if isinstance(o, Pod)]
    assert str(pod.spec.containers[0].resources.requests["nvidia.com/gpu"]) == "1"


def test_admin_access_in_the_default_namespace_is_rejected() -> None:
    inputs = read_inputs([str(WEBSITE / "dra-api--admin-access-claim-template.yaml")], profile_for())
    (err,) = errors(inputs)
    assert "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label" in err
    assert inputs.objects == []
    labelled = read_inputs([str(EXAMPLE / "admin-access" / "admin-access.yaml")], profile_for())
    assert not errors(labelled)


def test_fields_of_disabled_gates_are_dropped_with_a_warning() -> None:
    path = WEBSITE / "how-dra-works--xpu-node-allocatable-slice.yaml"
    inputs = read_inputs([str(path)], profile_for("1.36"))
    assert not errors(inputs)
    assert any("DRANodeAllocatableResources feature gate is disabled" in w for w in warnings(inputs))
    (s,) = [o for o in inputs.objects if isinstance(o, r.ResourceSlice)]
    assert all(d.node_allocatable_resource_mappings is None for d in s.spec.devices)
    kept = read_inputs([str(path)], profile_for("1.36", "DRANodeAllocatableResources=true"))
    (s,) = [o for o in kept.objects if isinstance(o, r.ResourceSlice)]
    assert any(d.node_allocatable_resource_mappings for d in s.spec.devices)
    # The tolerations of a template at 1.35 (DRADeviceTaints off): dropped, the template admitted.
    taints = EXAMPLE / "device-taints-tolerations"
    template = taints / "device-taint-pod-toleration" / "2-basic-resourceclaimtemplate.yaml"
    old = read_inputs([str(template)], profile_for("1.35"))
    assert not errors(old) and any("DRADeviceTaints feature gate is disabled" in w for w in warnings(old))


def test_too_many_requests_are_rejected_before_any_allocation(tmp_path: Path) -> None:
    requests = "".join(f"      - {{name: r{i}, exactly: {{deviceClassName: gpu.example.com}}}}\n" for i in range(33))
    path = tmp_path / "claim.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: big}\nspec:\n"
                    f"  devices:\n    requests:\n{requests}")
    (err,) = errors(read_inputs([str(path)], profile_for()))
    assert err == "ResourceClaim/default/big: spec.devices.requests: Too many: 33: must have at most 32 items" or \
        "must have at most 32 items" in err


def test_last_definition_wins_with_a_warning(tmp_path: Path) -> None:
    src = EXAMPLE / "basic-resourceclaimtemplate" / "basic-resourceclaimtemplate.yaml"
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(src.read_text())
    b.write_text(src.read_text().replace("deviceClassName: gpu.example.com", "deviceClassName: other.example.com"))
    inputs = read_inputs([str(a), str(b)], profile_for())
    (template,) = [o for o in inputs.objects if isinstance(o, r.ResourceClaimTemplate)]
    assert template.spec.spec.devices.requests[0].exactly.device_class_name == "other.example.com"
    dup = [w for w in warnings(inputs) if "replaces the earlier one" in w]
    assert len(dup) == 4 and f"defined in {a} and again in {b}" in dup[0]


def test_every_real_file_is_admitted_or_rejected_without_a_traceback() -> None:
    files = sorted(p for p in REAL.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
    assert len(files) == 101
    for path in files:
        with contextlib.suppress(DrasimError):  # unreadable input: one clear message
            read_inputs([os.fspath(path)], profile_for())
