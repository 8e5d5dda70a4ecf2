"""PodGroup claims (DRAWorkloadResourceClaims): one claim per PodGroup entry, shared by the group's pods.

Derived from the e2e plan of the DRA workload claims KEP (kubernetes/enhancements, keps/sig-scheduling,
"ResourceClaim Lifecycle" and "e2e tests": a PodGroup's template becomes one claim owned by the PodGroup and
annotated `resource.kubernetes.io/podgroup-claim-name`; the first pod allocates it, later pods of the group get
the same claim and no claim of their own; `reservedFor` names the PodGroup) and from the dra-example-driver's
demo/examples/podgroup-resourceclaimtemplate (commit 63e29a49, its README: "All pods in group-1 should show the
same GPU ID", a different one for group-2).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drasim import lib
from drasim.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests/realworld/dra-example-driver/demo/examples/podgroup-resourceclaimtemplate"
CLUSTER = ROOT / "examples/example-driver/cluster.yaml"
GATES = "GenericWorkload=true,GangScheduling=true,DRAWorkloadResourceClaims=true"


def _run(version: str = "1.37", gates: str = GATES) -> lib.Simulation:
    inputs = lib.load([str(CLUSTER), str(EXAMPLE)], release=lib.profile(version, gates))
    return lib.simulate(inputs)


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_each_group_shares_one_device(version: str) -> None:
    sim = _run(version)
    state = sim.result.state
    assert not sim.pending
    claims = sorted(state.claims.values(), key=lambda c: c.metadata.name)
    assert [c.metadata.generate_name for c in claims] == ["group-1-gpu-", "group-2-gpu-"]
    devices: dict[str, set[str]] = {}
    for pod in state.pods.values():
        group = pod.spec.scheduling_group
        assert group is not None and group.pod_group_name is not None and pod.status is not None
        [status] = pod.status.resource_claim_statuses
        claim = state.claims[("podgroup-resourceclaimtemplate", status.resource_claim_name or "")]
        assert claim.metadata.owner_references[0].kind == "PodGroup"
        assert claim.metadata.owner_references[0].name == group.pod_group_name
        assert claim.status is not None and claim.status.allocation is not None
        devices.setdefault(group.pod_group_name, set()).update(
            r.device for r in claim.status.allocation.devices.results)
    assert devices == {"group-1": {"gpu-0"}, "group-2": {"gpu-1"}}  # 2 GPUs in use, not 4


def test_claim_is_reserved_for_the_group_and_recorded_in_its_status() -> None:
    state = _run().result.state
    for key, group in state.pod_groups.items():
        assert group.status is not None
        [recorded] = group.status.resource_claim_statuses
        claim = state.claims[(key[0], recorded.resource_claim_name or "")]
        assert claim.metadata.annotations["resource.kubernetes.io/podgroup-claim-name"] == "gpu"
        assert claim.status is not None
        assert [(r.api_group, r.resource, r.name, r.uid) for r in claim.status.reserved_for] == [
            ("scheduling.k8s.io", "podgroups", key[1], group.metadata.uid)]


def test_without_the_workload_claims_gate_every_pod_gets_its_own_claim() -> None:
    sim = _run(gates="GenericWorkload=true,GangScheduling=true")
    assert len(sim.result.state.claims) == 4 and len(sim.pending) == 2  # 4 pods, 4 claims, 2 GPUs
    warnings = [f.message for _s, f in lib.load([str(CLUSTER), str(EXAMPLE)], release=lib.profile(
        "1.37", "GenericWorkload=true")).admission.warnings()]
    assert any("DRAWorkloadResourceClaims feature gate is disabled" in w for w in warnings)


def test_gates_off_refuse_the_podgroups_naming_the_gates() -> None:
    inputs = lib.load([str(CLUSTER), str(EXAMPLE)], release=lib.profile("1.37"))
    errors = [f.message for _s, f in inputs.admission.errors()]
    assert len(errors) == 2
    assert all('no matches for kind "PodGroup" in version "scheduling.k8s.io/v1alpha2"' in e for e in errors)
    assert all("GenericWorkload=true, GangScheduling=true, DRAWorkloadResourceClaims=true" in e for e in errors)
    with pytest.raises(InputError):
        inputs.raise_refused()


def test_1_35_has_no_podgroups() -> None:
    inputs = lib.load([str(CLUSTER), str(EXAMPLE)], release=lib.profile("1.35", "GenericWorkload=true"))
    assert all("they came in 1.36" in f.message for _s, f in inputs.admission.errors())



def test_the_html_report_lists_the_groups_and_only_then() -> None:
    from drasim.report import collect, render

    page = render(collect(_run().result, explain=False))
    assert '<section id="podgroups"><h2>PodGroups (2)</h2>' in page
    assert "group-1 (gang, minCount 2): 2/2 pods placed" in page
    plain = lib.simulate(lib.load([str(CLUSTER)], release=lib.profile("1.37"))).result
    assert 'id="podgroups"' not in render(collect(plain, explain=False))


def test_a_named_claim_of_a_basic_group_is_reserved_once_for_the_group(tmp_path: Path) -> None:
    """A PodGroup entry naming an existing claim (`resourceClaimName`): pods whose entry matches it exactly
    share it, reserved for the PodGroup instead of per pod (the KEP's "Allocate")."""
    path = tmp_path / "named.yaml"
    path.write_text("""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: readers, namespace: default}
spec:
  schedulingPolicy: {basic: {}}
  resourceClaims:
  - {name: gpu, resourceClaimName: shared}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: readers, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: readers}}
  template:
    metadata: {labels: {app: readers}}
    spec:
      schedulingGroup: {podGroupName: readers}
      containers:
      - name: c
        image: x
        resources: {claims: [{name: gpu}]}
      resourceClaims:
      - {name: gpu, resourceClaimName: shared}
""")
    sim = lib.simulate(lib.load([str(CLUSTER), str(path)], release=lib.profile("1.37", GATES)))
    assert not sim.pending
    claim = sim.result.state.claims[("default", "shared")]
    assert claim.status is not None
    assert [(r.resource, r.name) for r in claim.status.reserved_for] == [("podgroups", "readers")]
