"""PodGroup and pod.spec.schedulingGroup validation and gate dropping.

Rules from kubernetes/kubernetes staging/src/k8s.io/api/scheduling/v1alpha2/types.go (1.37 development revisions:
`+k8s:minimum=1` on gang.minCount, the scheduling policy and each claim a union, `+k8s:maxItems=4` on
resourceClaims behind DRAWorkloadResourceClaims) and staging/src/k8s.io/api/core/v1/types.go (schedulingGroup
behind GenericWorkload).
"""

from __future__ import annotations

from typing import Any

import pytest

from drasim.api.decode import decode_object
from drasim.api.gates import ValidationFeatures
from drasim.api.scheduling import PodGroup
from drasim.validation.objects import store_object

ON = ValidationFeatures(generic_workload=True, workload_resource_claims=True)


def _group(spec: dict[str, Any]) -> PodGroup:
    obj = decode_object({"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
                         "metadata": {"name": "g", "namespace": "ns"}, "spec": spec}, source="t.yaml")
    assert isinstance(obj, PodGroup)
    return obj


def _errors(obj: Any, features: ValidationFeatures = ON) -> list[tuple[str, str]]:
    return [(f.path, f"{f.type}: {f.message}") for f in store_object(obj, features=features)[1]
            if f.severity == "error"]


@pytest.mark.parametrize(("spec", "path", "words"), [
    ({"schedulingPolicy": {"gang": {"minCount": 0}}}, "spec.schedulingPolicy.gang.minCount",
     "must be greater than or equal to 1"),
    ({"schedulingPolicy": {}}, "spec.schedulingPolicy", "must specify one of: `basic`, `gang`"),
    ({"schedulingPolicy": {"basic": {}, "gang": {"minCount": 1}}}, "spec.schedulingPolicy",
     "must specify exactly one of: `basic`, `gang`"),
    ({"schedulingPolicy": {"basic": {}}, "resourceClaims": [{"name": "gpu"}]}, "spec.resourceClaims[0]",
     "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"),
    ({"schedulingPolicy": {"basic": {}},
      "resourceClaims": [{"name": f"c{i}", "resourceClaimName": "x"} for i in range(5)]},
     "spec.resourceClaims", "must have at most 4 items"),
    ({"schedulingPolicy": {"basic": {}}, "resourceClaims": [{"name": "a", "resourceClaimName": "x"},
                                                            {"name": "a", "resourceClaimName": "y"}]},
     "spec.resourceClaims[1].name", "Duplicate"),
])
def test_invalid_pod_groups(spec: dict[str, Any], path: str, words: str) -> None:
    errors = _errors(_group(spec))
    assert any(p == path and words in m for p, m in errors), errors


def test_valid_gang_with_a_template_claim() -> None:
    group = _group({"schedulingPolicy": {"gang": {"minCount": 2}},
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]})
    assert _errors(group) == []


def test_claims_dropped_while_their_gate_is_off() -> None:
    group = _group({"schedulingPolicy": {"gang": {"minCount": 2}},
                    "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]})
    stored, findings = store_object(group, features=ValidationFeatures(generic_workload=True))
    assert stored.spec.resource_claims == [] and group.spec.resource_claims  # the input is not changed
    assert [(f.path, f.severity) for f in findings] == [("spec.resourceClaims", "warning")]
    assert "DRAWorkloadResourceClaims feature gate is disabled" in findings[0].message


def test_scheduling_group_dropped_while_generic_workload_is_off() -> None:
    pod = decode_object({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"schedulingGroup": {"podGroupName": "g"}, "containers": [{"name": "c"}]}},
                        source="t.yaml")
    stored, findings = store_object(pod, features=ValidationFeatures())
    assert stored.spec.scheduling_group is None  # type: ignore[union-attr]
    assert [f.path for f in findings] == ["spec.schedulingGroup"]
    kept, _ = store_object(pod, features=ON)
    assert kept.spec.scheduling_group is not None  # type: ignore[union-attr]


def test_scheduling_group_name_must_be_a_dns_subdomain() -> None:
    pod = decode_object({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                         "spec": {"schedulingGroup": {"podGroupName": "Bad_Name"}, "containers": [{"name": "c"}]}},
                        source="t.yaml")
    assert [p for p, _m in _errors(pod)] == ["spec.schedulingGroup.podGroupName"]
