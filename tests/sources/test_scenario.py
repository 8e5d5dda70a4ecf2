"""sources/scenario.py: every conformance scenario loads; malformed scenarios give clear errors."""

from __future__ import annotations

import glob
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from drasim.api.quantity import Quantity
from drasim.api.resource import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice
from drasim.errors import InputError
from drasim.sources.scenario import KNOWN_FEATURES, Scenario, Step, load_scenario, parse_scenario

CONFORMANCE = os.path.join(os.path.dirname(__file__), "..", "conformance")
FOLDERS = {"upstream-v1.36": 217, "seed": 12, "random": 300}


def files_in(folder: str) -> list[str]:
    return sorted(glob.glob(os.path.join(CONFORMANCE, folder, "*.yaml")))


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_every_conformance_scenario_loads(folder: str) -> None:
    paths = files_in(folder)
    assert len(paths) == FOLDERS[folder]
    calls = 0
    for path in paths:
        sc = load_scenario(path)
        assert sc.warnings == [] and sc.objects and sc.source == path
        assert len(sc.expect) == len(sc.steps), path  # one expectation per Allocate call
        for step in sc.steps:
            assert sc.step_node(step)
        assert set(sc.features) <= set(KNOWN_FEATURES)
        with open(path) as f:
            raw = yaml.load(f, Loader=yaml.CSafeLoader)
        assert [o.metadata.name for o in sc.objects] == [o["metadata"]["name"] for o in raw["objects"]]
        calls += len(sc.steps)
    assert calls == {"upstream-v1.36": 217, "seed": 24, "random": 775}[folder]


def test_upstream_outcomes_match_the_readme() -> None:
    statuses = Counter(e["status"] for p in files_in("upstream-v1.36") for e in load_scenario(p).expect)
    assert statuses == {"allocated": 130, "unsatisfiable": 57, "error": 30}


def test_seed_09_in_detail() -> None:
    sc = load_scenario(os.path.join(CONFORMANCE, "seed", "seed-09-taint-rule-noschedule.yaml"))
    assert sc.name == "seed-09-taint-rule-noschedule" and sc.node == "dgx-h100-09"
    assert sc.steps[0] == Step(claims=["plain"], node=None, commit=False)
    assert sc.apply_defaults is True and sc.features == {} and sc.allocator is None
    assert [type(o) for o in sc.objects][:4] == [
        type(sc.objects[0]),
        DeviceClass,
        ResourceSlice,
        DeviceTaintRule,
    ]
    rule = sc.objects[3]
    assert isinstance(rule, DeviceTaintRule) and rule.api_version == "resource.k8s.io/v1"
    assert sc.expect[2] == {"status": "unsatisfiable"}
    assert "upstreamOutput" in sc.annotations


def test_allocated_state_and_pinned_allocator() -> None:
    loaded = [load_scenario(p) for p in files_in("upstream-v1.36")]
    with_state = [
        s
        for s in loaded
        if s.allocated_state.devices
        or s.allocated_state.consumed_capacity
        or s.allocated_state.shared_devices
    ]
    assert len(with_state) == 23
    consumed = next(
        s for s in with_state if s.allocated_state.consumed_capacity
    ).allocated_state.consumed_capacity[0]
    assert isinstance(next(iter(consumed.capacity.values())), Quantity)
    assert any(s.allocated_state.shared_devices for s in with_state)
    assert sum(s.allocator == "incubating" for s in loaded) == 4
    assert all(s.apply_defaults is False for s in loaded)


def test_objects_load_without_validation() -> None:
    # Upstream cases rely on objects reaching the allocator as written (empty class names, no values).
    sc = parse_scenario(
        {
            "name": "raw",
            "node": "n",
            "allocate": ["c"],
            "expect": [{"status": "error"}],
            "objects": [
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaim",
                    "metadata": {"name": "c"},
                    "spec": {
                        "devices": {
                            "requests": [{"name": "r", "exactly": {"deviceClassName": "", "count": 0}}]
                        }
                    },
                },
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceSlice",
                    "metadata": {"name": "s"},
                    "spec": {
                        "driver": "d",
                        "pool": {"name": "p"},
                        "devices": [{"name": "x", "attributes": {"a": {}}}],
                    },
                },
            ],
        },
        source="raw.yaml",
    )
    claim = sc.objects[0]
    assert isinstance(claim, ResourceClaim)
    exactly = claim.spec.devices.requests[0].exactly
    assert exactly is not None and exactly.device_class_name == "" and exactly.count == 0
    assert sc.steps == [Step(claims=["c"])] and sc.name == "raw"


def minimal(**extra: Any) -> dict[str, Any]:
    return {
        "name": "m",
        "node": "n",
        "allocate": [],
        "expect": [{"status": "allocated"}],
        "objects": [],
        **extra,
    }


def error_of(data: Any) -> InputError:
    with pytest.raises(InputError) as info:
        parse_scenario(data, source="sc.yaml")
    return info.value


def test_unknown_top_level_key() -> None:
    err = error_of(minimal(expected=[]))
    assert str(err) == 'sc.yaml: expected: unknown field "expected"'


def test_allocate_and_steps_are_exclusive() -> None:
    assert "not both" in error_of(minimal(steps=[{"claims": ["a"]}])).message


def test_steps_need_a_node() -> None:
    data = minimal(steps=[{"claims": ["a"], "node": "x"}, {"claims": ["b"]}])
    del data["allocate"], data["node"]
    err = error_of(data)
    assert (err.path, err.source) == ("steps[1].node", "sc.yaml")


def test_step_fields_are_checked() -> None:
    data = minimal(steps=[{"claims": ["a"], "comit": False}])
    del data["allocate"]
    assert error_of(data).path == "steps[0].comit"
    data["steps"] = [{"claims": "a"}]
    assert (error_of(data).path, error_of(data).message) == ("steps[0].claims", "expected array, got str")


def test_unknown_feature_and_bad_values() -> None:
    err = error_of(minimal(features={"deviceTaint": True}))
    assert err.path == "features.deviceTaint" and "unknown feature" in err.message
    assert error_of(minimal(features={"deviceTaints": "yes"})).path == "features.deviceTaints"
    assert error_of(minimal(allocator="fast")).path == "allocator"
    assert error_of(minimal(applyDefaults="no")).path == "applyDefaults"
    assert error_of(minimal(allocatedState={"devices": [{"driver": "d", "pool": "p"}]})).path == (
        "allocatedState.devices[0].device"
    )


def test_bad_object_names_its_index() -> None:
    data = minimal(
        objects=[
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": "s"},
                "spec": {"pool": {"generation": "one"}},
            }
        ]
    )
    assert str(error_of(data)) == (
        "sc.yaml: objects[0] ResourceSlice/s: spec.pool.generation: expected int, got str"
    )


def test_not_a_mapping_and_files(tmp_path: Path) -> None:
    assert "mapping" in error_of(["a"]).message
    two = tmp_path / "two.yaml"
    two.write_text("name: a\n---\nname: b\n")
    with pytest.raises(InputError, match="exactly one YAML document"):
        load_scenario(str(two))
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: a\nnode: [\n")
    with pytest.raises(InputError, match=r"bad.yaml: invalid YAML \(line 3"):
        load_scenario(str(bad))
    with pytest.raises(InputError, match="no such file"):
        load_scenario(str(tmp_path / "missing.yaml"))


def test_name_defaults_to_file_stem(tmp_path: Path) -> None:
    path = tmp_path / "my-case.yaml"
    path.write_text("node: n\nallocate: []\n")
    sc = load_scenario(str(path))
    assert isinstance(sc, Scenario) and sc.name == "my-case" and sc.steps == [Step(claims=[])]
