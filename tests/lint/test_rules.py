"""drasim lint rules: each rule firing and not firing, on small scenarios built for it."""

from __future__ import annotations

import textwrap

import pytest

from drasim.errors import DrasimError
from drasim.lint import RULES, LintFinding, lint_objects
from drasim.lint.celfacts import selector_facts
from drasim.lint.versions import gate_history, lint_features, normalize_lint_version
from drasim.sources.files import load_bytes

# --- building blocks ---------------------------------------------------------------------------------


def load(*docs: str) -> list[object]:
    text = "\n---\n".join(textwrap.dedent(d).strip("\n") for d in docs)
    return list(load_bytes(text.encode(), source="test.yaml").objects)


def run(*docs: str, version: str = "1.36") -> list[LintFinding]:
    return lint_objects(load(*docs), version=version)


def of(findings: list[LintFinding], rule: str) -> list[LintFinding]:
    return [f for f in findings if f.rule == rule]


def slice_doc(name: str, devices: str, *, driver: str = "gpu.example.com", pool: str | None = None,
              extra: str = "") -> str:
    return f"""
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {name}}}
spec:
  driver: {driver}
  nodeName: {pool or name}
  pool: {{name: {pool or name}, resourceSliceCount: 1}}
{extra}  devices:
{textwrap.indent(textwrap.dedent(devices).strip(chr(10)), '  ')}
"""


def gpus(*names: str, attrs: str = "model: {string: H100}") -> str:
    return "\n".join(f"- name: {n}\n  attributes: {{{attrs}}}" for n in names)


def class_doc(name: str, *exprs: str, extra: str = "") -> str:
    sels = "\n".join(f"  - cel: {{expression: '{e}'}}" for e in exprs)
    body = f"  selectors:\n{sels}\n" if exprs else ("" if extra else "  {}\n")
    return f"""
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {name}}}
spec:
{body}{extra}"""


def taint_rule(name: str, selector: str | None, effect: str, *, key: str = "example.com/maint",
               status: str = "") -> str:
    sel = f"  deviceSelector: {selector}\n" if selector is not None else ""
    return f"""
apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {{name: {name}}}
spec:
{sel}  taint: {{key: {key}, effect: {effect}}}
{status}"""


def allocated_claim(name: str, ns: str, devices: list[tuple[str, str, str]], pods: list[str]) -> str:
    results = "\n".join(
        f"        - {{request: gpu, driver: {d}, pool: {p}, device: {n}}}" for d, p, n in devices
    )
    reserved = "\n".join(f"    - {{resource: pods, name: {p}, uid: uid-{p}}}" for p in pods)
    return f"""
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: {name}, namespace: {ns}}}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {{deviceClassName: gpu.example.com}}
status:
  allocation:
    devices:
      results:
{results}
  reservedFor:
{reserved}
"""


TWO_POOLS = (
    slice_doc("node-1", gpus("gpu-0", "gpu-1")),
    slice_doc("node-2", gpus("gpu-0")),
)


# --- the catalogue --------------------------------------------------------------------------------


def test_every_rule_is_documented() -> None:
    for rule in RULES.values():
        assert rule.id and rule.severity and rule.what and rule.why
    assert len(RULES) == 19


def test_findings_use_documented_ids_and_severities() -> None:
    findings = run(
        *TWO_POOLS,
        taint_rule("all", "{}", "NoExecute"),
        class_doc("c", 'device.attributes["gpu.example.com"].type == "gpu"'),
        version="1.33",
    )
    assert findings
    for f in findings:
        assert f.rule in RULES
        assert f.severity in ("error", "warning")


# --- api-validation -------------------------------------------------------------------------------


def test_api_validation_is_included() -> None:
    claim = """
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: train, namespace: ml}
    spec:
      devices:
        requests:
        - name: gpus
          exactly: {deviceClassName: gpu.example.com, count: -2}
    """
    found = of(run(claim), "api-validation")
    assert [(f.obj, f.path, f.severity) for f in found] == [
        ("ResourceClaim/ml/train", "spec.devices.requests[0].exactly.count", "error")
    ]
    assert "must be greater than zero" in found[0].message


def test_clean_objects_have_no_findings() -> None:
    assert run(*TWO_POOLS, class_doc("gpu.example.com", 'device.driver == "gpu.example.com"')) == []


# --- DeviceTaintRules -----------------------------------------------------------------------------


def test_empty_selector_noexecute_counts_devices_and_pods() -> None:
    findings = run(
        *TWO_POOLS,
        taint_rule("all", "{}", "NoExecute"),
        allocated_claim("c1", "ml", [("gpu.example.com", "node-1", "gpu-0")], ["p1", "p2"]),
        allocated_claim("c2", "web", [], ["p3"]),
    )
    (f,) = of(findings, "taint-rule-selects-all")
    assert (f.severity, f.obj, f.path) == ("error", "DeviceTaintRule/all", "spec.deviceSelector")
    assert "3 published devices and 1 allocated device; 2 pods in 1 namespace would be evicted" in f.message


@pytest.mark.parametrize(("effect", "severity"), [("NoSchedule", "error"), ("None", "warning")])
def test_empty_selector_other_effects(effect: str, severity: str) -> None:
    (f,) = of(run(*TWO_POOLS, taint_rule("all", "{}", effect)), "taint-rule-selects-all")
    assert f.severity == severity
    assert "3 published devices" in f.message


def test_selector_naming_a_driver_is_not_select_all() -> None:
    findings = run(*TWO_POOLS, taint_rule("drv", "{driver: gpu.example.com}", "NoSchedule"))
    assert of(findings, "taint-rule-selects-all") == []
    assert of(findings, "taint-rule-no-selector") == []


def test_missing_selector_warns_about_the_ambiguity() -> None:
    (f,) = of(run(*TWO_POOLS, taint_rule("nil", None, "NoSchedule")), "taint-rule-no-selector")
    assert (f.severity, f.path) == ("warning", "spec")
    assert "tainting no device" in f.message and "avoid all 3 published devices here" in f.message
    assert "1.36 scheduler" in f.message


def test_noexecute_without_rehearsal() -> None:
    findings = run(
        *TWO_POOLS,
        taint_rule("drain", "{driver: gpu.example.com, pool: node-1}", "NoExecute"),
        allocated_claim("c1", "ml", [("gpu.example.com", "node-1", "gpu-1")], ["p1"]),
    )
    (f,) = of(findings, "taint-rule-unrehearsed-noexecute")
    assert (f.severity, f.path) == ("warning", "spec.taint.effect")
    assert "rehearse with effect None first; drasim taint dry-run shows what it would evict" in f.message
    assert "2 published devices and 1 allocated device; 1 pod in 1 namespace would be evicted" in f.message


def test_noexecute_rehearsed_by_a_none_rule() -> None:
    sel = "{driver: gpu.example.com, pool: node-1}"
    findings = run(*TWO_POOLS, taint_rule("drain", sel, "NoExecute"), taint_rule("dry", sel, "None"))
    assert of(findings, "taint-rule-unrehearsed-noexecute") == []


def test_none_rule_with_another_selector_is_no_rehearsal() -> None:
    findings = run(
        *TWO_POOLS,
        taint_rule("drain", "{driver: gpu.example.com, pool: node-1}", "NoExecute"),
        taint_rule("dry", "{driver: gpu.example.com, pool: node-2}", "None"),
    )
    assert len(of(findings, "taint-rule-unrehearsed-noexecute")) == 1


def test_noexecute_rehearsed_per_status() -> None:
    status = """status:
  conditions:
  - {type: EvictionInProgress, status: "False", reason: NoEffect, message: dry run,
     lastTransitionTime: "2026-01-01T00:00:00Z"}
"""
    findings = run(*TWO_POOLS, taint_rule("drain", "{pool: node-1}", "NoExecute", status=status))
    assert of(findings, "taint-rule-unrehearsed-noexecute") == []


@pytest.mark.parametrize("effect", ["None", "NoSchedule"])
def test_other_effects_need_no_rehearsal(effect: str) -> None:
    assert of(run(*TWO_POOLS, taint_rule("t", "{pool: node-1}", effect)), "taint-rule-unrehearsed-noexecute") == []


def test_non_pod_consumers_are_not_counted() -> None:
    claim = allocated_claim("c1", "ml", [("gpu.example.com", "node-1", "gpu-0")], ["p1"]).replace(
        "- {resource: pods, name: p1, uid: uid-p1}",
        "- {resource: podgroups, apiGroup: scheduling.k8s.io, name: g, uid: uid-g}",
    )
    (f,) = of(run(*TWO_POOLS, taint_rule("all", "{}", "NoExecute"), claim), "taint-rule-selects-all")
    assert "0 pods in 0 namespaces would be evicted" in f.message


# --- firstAvailable in replicated workloads ----------------------------------------------------------

MIXED_TEMPLATE = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: big-or-small, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: gpu.example.com, count: 1}
        - {name: two-small, deviceClassName: small.example.com, count: 2}
"""

SAME_SHAPE_TEMPLATE = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: h100-or-a100, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - name: h100
          deviceClassName: gpu.example.com
          selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "H100"'}}]
        - name: a100
          deviceClassName: gpu.example.com
          selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "A100"'}}]
"""


def workload(
    kind: str, counts: str, template: str, ns: str = "ml", claim_field: str = "resourceClaimTemplateName"
) -> str:
    api = "batch/v1" if kind == "Job" else "apps/v1"
    return f"""
apiVersion: {api}
kind: {kind}
metadata: {{name: trainer, namespace: {ns}}}
spec:
  {counts}
  template:
    spec:
      containers:
      - name: main
        image: trainer
        resources: {{claims: [{{name: gpu}}]}}
      resourceClaims:
      - name: gpu
        {claim_field}: {template}
"""


@pytest.mark.parametrize(
    ("kind", "counts"),
    [("Deployment", "replicas: 3"), ("StatefulSet", "replicas: 2"), ("ReplicaSet", "replicas: 4"),
     ("Job", "parallelism: 2"), ("Job", "completions: 5")],
)
def test_first_available_mixed_shapes_fires(kind: str, counts: str) -> None:
    (f,) = of(run(MIXED_TEMPLATE, workload(kind, counts, "big-or-small")), "first-available-mixed-shapes")
    assert (f.severity, f.obj) == ("warning", f"{kind}/ml/trainer")
    assert f.path == "spec.template.spec.resourceClaims[0].resourceClaimTemplateName"
    assert "big: 1 x gpu.example.com; two-small: 2 x small.example.com" in f.message
    assert "replicas may come up with different alternatives" in f.message


@pytest.mark.parametrize(
    ("template", "counts", "ns", "claim_field"),
    [
        ("big-or-small", "replicas: 1", "ml", "resourceClaimTemplateName"),  # one pod
        ("big-or-small", "paused: false", "ml", "resourceClaimTemplateName"),  # replicas default to 1
        ("h100-or-a100", "replicas: 3", "ml", "resourceClaimTemplateName"),  # same shape
        ("big-or-small", "replicas: 3", "other", "resourceClaimTemplateName"),  # template not in namespace
        ("big-or-small", "replicas: 3", "ml", "resourceClaimName"),  # one shared claim
    ],
)
def test_first_available_mixed_shapes_quiet(template: str, counts: str, ns: str, claim_field: str) -> None:
    docs = run(MIXED_TEMPLATE, SAME_SHAPE_TEMPLATE, workload("Deployment", counts, template, ns, claim_field))
    assert of(docs, "first-available-mixed-shapes") == []


# --- CEL against published devices -------------------------------------------------------------------


def test_class_reading_an_unpublished_attribute() -> None:
    findings = run(
        *TWO_POOLS,
        class_doc("gpu", 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].type == "gpu"'),
    )
    (f,) = of(findings, "cel-missing-attribute")
    assert (f.severity, f.obj, f.path) == ("error", "DeviceClass/gpu", "spec.selectors[0].cel.expression")
    assert 'attribute "gpu.example.com/type"' in f.message and "no such key: type" in f.message
    assert "3 devices of gpu.example.com" in f.message
    assert of(findings, "cel-runtime-error") == []  # the same failure, not reported twice
    assert len(of(findings, "class-matches-nothing")) == 1


def test_published_attribute_is_fine() -> None:
    findings = run(*TWO_POOLS, class_doc("gpu", 'device.attributes["gpu.example.com"].model == "H100"'))
    assert of(findings, "cel-missing-attribute") == of(findings, "cel-runtime-error") == []


@pytest.mark.parametrize(
    "expr",
    [
        'has(device.attributes["gpu.example.com"].type) && device.attributes["gpu.example.com"].type == "gpu"',
        '"type" in device.attributes["gpu.example.com"] && device.attributes["gpu.example.com"].type == "gpu"',
        'device.attributes["gpu.example.com"].?type.orValue("") == "gpu"',
        '!has(device.attributes["gpu.example.com"].type) || device.attributes["gpu.example.com"].type == "gpu"',
    ],
)
def test_guarded_lookup_is_a_warning(expr: str) -> None:
    findings = run(*TWO_POOLS, class_doc("gpu", expr))
    found = of(findings, "cel-missing-attribute")
    assert [f.severity for f in found] == ["warning"]
    assert "never true" in found[0].message
    assert of(findings, "cel-runtime-error") == []


def test_driver_guard_limits_the_devices_considered() -> None:
    other = slice_doc("nic-1", gpus("nic-0", attrs="type: {string: nic}"), driver="nic.example.com")
    expr = 'device.driver == "gpu.example.com" && device.attributes["nic.example.com"].type == "nic"'
    (f,) = of(run(*TWO_POOLS, other, class_doc("c", expr)), "cel-missing-attribute")
    assert f.severity == "error" and "only other devices publish it" in f.message


def test_unrestricted_lookup_of_another_drivers_attribute() -> None:
    other = slice_doc("nic-1", gpus("nic-0", attrs="type: {string: nic}"), driver="nic.example.com")
    # Runs on every device: the gpu devices lack nic.example.com/type, the nic device has it.
    findings = run(*TWO_POOLS, other, class_doc("c", 'device.attributes["nic.example.com"].type == "nic"'))
    assert of(findings, "cel-missing-attribute") == []
    (f,) = of(findings, "cel-runtime-error")
    assert f.severity == "error"
    assert "on 3 of the 4 devices" in f.message and "no such key: type" in f.message


def test_earlier_class_selector_narrows_the_devices() -> None:
    other = slice_doc("nic-1", gpus("nic-0", attrs="type: {string: nic}"), driver="nic.example.com")
    cls = class_doc("c", 'device.driver == "nic.example.com"', 'device.attributes["nic.example.com"].type == "nic"')
    findings = run(*TWO_POOLS, other, cls)
    assert of(findings, "cel-missing-attribute") == of(findings, "cel-runtime-error") == []


def test_missing_capacity() -> None:
    expr = 'device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("1Gi"))'
    (f,) = of(run(*TWO_POOLS, class_doc("c", expr)), "cel-missing-attribute")
    assert 'capacity "gpu.example.com/memory"' in f.message


def test_cel_bind_lookups_are_seen() -> None:
    expr = 'cel.bind(a, device.attributes["gpu.example.com"], a.typ == "gpu")'
    (f,) = of(run(*TWO_POOLS, class_doc("c", expr)), "cel-missing-attribute")
    assert '"gpu.example.com/typ"' in f.message


def test_partially_published_attribute_is_a_runtime_error() -> None:
    mixed = slice_doc("node-3", "- name: gpu-0\n  attributes: {model: {string: H100}, type: {string: gpu}}")
    findings = run(*TWO_POOLS, mixed, class_doc("c", 'device.attributes["gpu.example.com"].type == "gpu"'))
    assert of(findings, "cel-missing-attribute") == []
    (f,) = of(findings, "cel-runtime-error")
    assert "3 of the 4 devices" in f.message and "gpu.example.com/node-1/gpu-0" in f.message


def test_request_selector_checked_against_its_class_devices() -> None:
    claim = """
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaimTemplate
    metadata: {name: t, namespace: ml}
    spec:
      spec:
        devices:
          requests:
          - name: gpu
            exactly:
              deviceClassName: gpu.example.com
              selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].memoryGB > 40'}}]
    """
    findings = run(*TWO_POOLS, class_doc("gpu.example.com", 'device.driver == "gpu.example.com"'), claim)
    (f,) = of(findings, "cel-missing-attribute")
    assert f.obj == "ResourceClaimTemplate/ml/t"
    assert f.path == "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"


def test_no_slices_no_device_findings() -> None:
    findings = run(class_doc("c", 'device.attributes["gpu.example.com"].type == "gpu"'))
    for rule in ("cel-missing-attribute", "cel-runtime-error", "class-matches-nothing"):
        assert of(findings, rule) == []


def test_class_matching_nothing() -> None:
    findings = run(*TWO_POOLS, class_doc("b200", 'device.attributes["gpu.example.com"].model == "B200"'))
    (f,) = of(findings, "class-matches-nothing")
    assert (f.severity, f.path) == ("warning", "spec.selectors")
    assert "3 devices of gpu.example.com" in f.message


def test_class_without_selectors_matches_everything() -> None:
    assert of(run(*TWO_POOLS, class_doc("any")), "class-matches-nothing") == []


def test_uncompilable_selector_is_left_to_api_validation() -> None:
    findings = run(*TWO_POOLS, class_doc("c", "device.attributes[1"))
    assert [f.rule for f in findings] == ["api-validation"]


def test_selector_facts() -> None:
    facts = selector_facts(
        'device.driver in ["a", "b"] && has(device.attributes["a"].x) && device.attributes["a"].x == "v"'
    )
    assert facts is not None
    assert facts.drivers == frozenset({"a", "b"})
    assert {(lk.name, lk.guarded) for lk in facts.lookups} == {("x", True)}
    assert facts.literals == {("a", "x"): ("v",)}
    assert selector_facts("device.attributes[") is None


# --- extended resources -----------------------------------------------------------------------------


def test_shared_extended_resource_name() -> None:
    findings = run(
        class_doc("a", extra="  extendedResourceName: example.com/gpu\n"),
        class_doc("b", extra="  extendedResourceName: example.com/gpu\n"),
        class_doc("c", extra="  extendedResourceName: example.com/other\n"),
    )
    found = of(findings, "extended-resource-shared")
    assert [(f.obj, f.severity, f.path) for f in found] == [
        ("DeviceClass/a", "warning", "spec.extendedResourceName"),
        ("DeviceClass/b", "warning", "spec.extendedResourceName"),
    ]
    assert "also provided by DeviceClass/b" in found[0].message


def test_extended_resource_name_taking_another_class_implicit_name() -> None:
    findings = run(
        class_doc("a"),
        class_doc("b", extra="  extendedResourceName: deviceclass.resource.kubernetes.io/a\n"),
    )
    (f,) = of(findings, "extended-resource-shared")
    assert f.obj == "DeviceClass/b" and "DeviceClass/a (its implicit name)" in f.message


# --- MIG profiles -----------------------------------------------------------------------------------


def mig_slice(product: str, profile: str) -> str:
    attrs = f"type: {{string: mig}}, productName: {{string: {product}}}, profile: {{string: '{profile}'}}"
    return slice_doc("mig-node", gpus("gpu-0-mig-0", attrs=attrs), driver="gpu.nvidia.com")


def mig_class(*profiles: str) -> str:
    ref = 'device.attributes["gpu.nvidia.com"].profile'
    expr = " || ".join(f'{ref} == "{p}"' for p in profiles)
    return class_doc("mig", expr)


def test_profile_missing_on_the_fleet() -> None:
    findings = run(mig_slice("NVIDIA H100 80GB HBM3", "1g.10gb"), mig_class("1g.10gb", "1g.5gb"))
    (f,) = of(findings, "mig-profile-unknown")
    assert (f.severity, f.obj) == ("warning", "DeviceClass/mig")
    assert '"1g.5gb"' in f.message and "NVIDIA H100 80GB HBM3" in f.message


def test_product_name_spellings_match_the_catalog() -> None:
    findings = run(mig_slice("NVIDIA-H100-80GB-HBM3", "1g.10gb"), mig_class("1g.5gb"))
    (f,) = of(findings, "mig-profile-unknown")
    assert "fleet's GPU models (NVIDIA-H100-80GB-HBM3)" in f.message


def test_fleet_without_mig_and_unknown_models() -> None:
    (f,) = of(run(mig_slice("NVIDIA L40S", "none"), mig_class("1g.10gb")), "mig-profile-unknown")
    assert "(NVIDIA L40S), which offer: no MIG profiles" in f.message
    unknown = mig_slice("Tesla V100-SXM2-16GB", "none")
    assert of(run(unknown, mig_class("1g.10gb")), "mig-profile-unknown") == []
    (f,) = of(run(unknown, mig_class("1g.7gb")), "mig-profile-unknown")
    assert "any GPU model in drasim's NVIDIA catalog" in f.message
    assert "the catalog has no data for Tesla V100-SXM2-16GB" in f.message


def test_profile_of_another_fleet_model_is_fine() -> None:
    # 3g.20gb exists on the A100 40GB only; the fleet has both models.
    a100 = mig_slice("NVIDIA A100-SXM4-40GB", "1g.5gb").replace("mig-node", "mig-a100")
    findings = run(mig_slice("NVIDIA H100 80GB HBM3", "1g.10gb"), a100, mig_class("3g.20gb"))
    assert of(findings, "mig-profile-unknown") == []


def test_published_profile_counts_even_if_catalog_lacks_it() -> None:
    findings = run(mig_slice("NVIDIA H100 80GB HBM3", "1g.10gb+gfx"), mig_class("1g.10gb+gfx"))
    assert of(findings, "mig-profile-unknown") == []


@pytest.mark.parametrize(("profile", "fires"), [("1g.5gb", False), ("1g.7gb", True)])
def test_profile_without_a_fleet_uses_the_whole_catalog(profile: str, fires: bool) -> None:
    found = of(run(mig_class(profile)), "mig-profile-unknown")
    assert bool(found) == fires
    if fires:
        assert "any GPU model in drasim's NVIDIA catalog" in found[0].message


def test_profile_in_a_claim_list_literal() -> None:
    claim = """
    apiVersion: resource.k8s.io/v1
    kind: ResourceClaim
    metadata: {name: c, namespace: ml}
    spec:
      devices:
        requests:
        - name: mig
          exactly:
            deviceClassName: mig
            selectors: [{cel: {expression: 'device.attributes["gpu.nvidia.com"].profile in ["1g.10gb", "9g.99gb"]'}}]
    """
    (f,) = of(run(mig_slice("NVIDIA H100 80GB HBM3", "1g.10gb"), claim), "mig-profile-unknown")
    assert f.path == "spec.devices.requests[0].exactly.selectors[0].cel.expression"
    assert '"9g.99gb"' in f.message


# --- features by release ------------------------------------------------------------------------------

FIRST_AVAILABLE_CLAIM = """
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      firstAvailable:
      - {name: a, deviceClassName: gpu.example.com}
"""


@pytest.mark.parametrize(("version", "words"), [("1.32", "which it does not have"), ("1.33", "alpha there")])
def test_first_available_before_it_is_on(version: str, words: str) -> None:
    (f,) = of(run(FIRST_AVAILABLE_CLAIM, version=version), "feature-unavailable")
    assert (f.severity, f.path) == ("error", "spec.devices.requests[0].firstAvailable")
    assert "DRAPrioritizedList" in f.message and words in f.message


def test_first_available_from_1_34() -> None:
    assert of(run(FIRST_AVAILABLE_CLAIM, version="1.34"), "feature-unavailable") == []


def test_gated_fields_fold_and_replace_api_validation() -> None:
    extra = "  sharedCounters:\n  - name: gpu-0-counters\n    counters: {memory: {value: 80Gi}}\n"
    counters = slice_doc("node-1-counters", "[]", pool="node-1", extra=extra).replace("  devices:\n  []\n", "")
    consume = "consumesCounters:\n  - counterSet: gpu-0-counters\n    counters: {memory: {value: 10Gi}}"
    consumers = slice_doc(
        "node-1-devs", "\n".join(f"- name: mig-{i}\n  {consume}" for i in range(3)), pool="node-1"
    ).replace("resourceSliceCount: 1", "resourceSliceCount: 2")
    counters = counters.replace("resourceSliceCount: 1", "resourceSliceCount: 2")
    findings = run(counters, consumers, version="1.35")
    found = of(findings, "feature-unavailable")
    assert [(f.obj, f.path) for f in found] == [
        ("ResourceSlice/node-1-counters", "spec.sharedCounters"),
        ("ResourceSlice/node-1-devs", "spec.devices[0].consumesCounters"),
    ]
    assert "also at 2 more paths" in found[1].message
    assert not [f for f in of(findings, "api-validation") if "feature gate" in f.message]
    assert of(run(counters, consumers, version="1.36"), "feature-unavailable") == []


def test_list_attributes_are_alpha_everywhere() -> None:
    s = slice_doc("n", "- name: d\n  attributes: {zones: {strings: [a, b]}}")
    for version in ("1.36", "1.37"):
        (f,) = of(run(s, version=version), "feature-unavailable")
        assert f.path == "spec.devices[0].attributes[zones].strings" and f.severity == "error"


def test_device_taint_rule_by_release() -> None:
    rule = taint_rule("t", "{pool: node-1}", "None")
    (f,) = of(run(rule, version="1.36"), "feature-unavailable")
    assert f.severity == "warning" and f.path == ""
    assert of(run(rule, version="1.35"), "feature-unavailable")[0].severity == "error"
    assert of(run(rule, version="1.37"), "feature-unavailable") == []


def test_version_profiles() -> None:
    assert normalize_lint_version("v1.33.4") == "1.33"
    with pytest.raises(DrasimError):
        normalize_lint_version("1.31")
    assert not lint_features("1.33").prioritized_list
    assert lint_features("1.34").prioritized_list
    assert gate_history("DRAPrioritizedList") == "alpha from 1.33, on by default from 1.34"


# --- counters -----------------------------------------------------------------------------------------

COMBINED = slice_doc(
    "node-1",
    "- name: gpu-0\n  consumesCounters:\n  - counterSet: set-0\n    counters: {memory: {value: 10Gi}}",
    extra="  sharedCounters:\n  - name: set-0\n    counters: {memory: {value: 80Gi}}\n",
)


def test_counters_in_device_slice() -> None:
    findings = run(COMBINED)
    (f,) = of(findings, "counters-in-device-slice")
    assert (f.severity, f.path) == ("error", "spec")
    assert not [f for f in of(findings, "api-validation") if "sharedCounters" in f.message]


def test_counters_in_device_slice_before_1_35_is_a_warning() -> None:
    (f,) = of(run(COMBINED, version="1.34"), "counters-in-device-slice")
    assert f.severity == "warning"


def test_counters_across_pools() -> None:
    owner = slice_doc("node-2-counters", "[]", pool="node-2",
                      extra="  sharedCounters:\n  - name: set-0\n    counters: {memory: {value: 80Gi}}\n")
    owner = owner.replace("  devices:\n  []\n", "")
    consumer = slice_doc(
        "node-1", "- name: gpu-0\n  consumesCounters:\n  - counterSet: set-0\n    counters: {memory: {value: 10Gi}}"
    )
    findings = run(owner, consumer)
    (f,) = of(findings, "counters-across-pools")
    assert (f.severity, f.obj, f.path) == (
        "error", "ResourceSlice/node-1", "spec.devices[0].consumesCounters[0].counterSet"
    )
    assert "only pool gpu.example.com/node-2 declares" in f.message
    assert not [f for f in of(findings, "api-validation") if "counter set not found" in f.message]


def test_counter_set_nowhere_is_api_validations() -> None:
    consumer = slice_doc(
        "node-1", "- name: gpu-0\n  consumesCounters:\n  - counterSet: set-0\n    counters: {memory: {value: 10Gi}}"
    )
    findings = run(consumer)
    assert of(findings, "counters-across-pools") == []
    assert [f for f in of(findings, "api-validation") if "counter set not found" in f.message]


def test_counters_in_own_pool_are_fine() -> None:
    assert of(run(COMBINED, version="1.34"), "counters-across-pools") == []


# --- lint_objects plumbing -----------------------------------------------------------------------------


def test_sources_skip_and_order() -> None:
    objs = load(*TWO_POOLS, taint_rule("all", "{}", "NoExecute"), taint_rule("nil", None, "None"))
    findings = lint_objects(objs, sources=["a.yaml", "a.yaml", "b.yaml", "c.yaml"])
    assert {f.source for f in findings if f.obj == "DeviceTaintRule/all"} == {"b.yaml"}
    assert [f.obj for f in findings] == sorted((f.obj for f in findings), key=lambda o: o != "DeviceTaintRule/all")
    assert lint_objects(objs) == lint_objects(list(objs))  # deterministic
    skipped = lint_objects(objs, skip=["taint-rule-selects-all", "feature-unavailable"])
    assert {f.rule for f in skipped} == {"taint-rule-unrehearsed-noexecute", "taint-rule-no-selector"}
