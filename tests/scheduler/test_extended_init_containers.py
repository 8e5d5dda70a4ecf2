"""Extended resources backed by DRA with init containers and sidecars (dra-semantics §5.7, PR #134882)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import build, device_class, gpu, gpu_slice, node

from drasim.api.core import Pod
from drasim.api.resource import DeviceClass
from drasim.cluster import ClusterState
from drasim.scheduler import Scheduler
from drasim.scheduler.dra import extended_requests

EXT = "example.com/gpu"  # upstream's extendedResourceName in these tests


def _classes() -> dict[str, DeviceClass]:
    out = {}
    for name, resource in (("class", EXT), ("class1", EXT + "1"), ("classInit", EXT + "init")):
        out[name] = build(DeviceClass, {"metadata": {"name": name}, "spec": {"extendedResourceName": resource}})
    return out


def _pod(init: list[dict[str, str]] = (), sidecar_at: int | None = None, *containers: dict[str, str]) -> Pod:
    inits = [{"name": f"init-con{i}", "resources": {"requests": r}} for i, r in enumerate(init)]
    if sidecar_at is not None:
        inits[sidecar_at]["restartPolicy"] = "Always"
        inits[sidecar_at]["name"] = f"sidecar-con{sidecar_at}"
    return build(Pod, {"metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": {
        "initContainers": inits,
        "containers": [{"name": f"con{i}", "resources": {"requests": r}} for i, r in enumerate(containers)]}})


def _requests(p: Pod, needs: tuple[str, ...], release: str = "1.36") -> list[tuple[str, str, int]]:
    reqs, _ = extended_requests(p, needs, _classes(), release)
    return [(r.name, r.exactly.device_class_name, r.exactly.count) for r in reqs if r.exactly]


POD1 = _pod([], None, {EXT: "1", EXT + "1": "2"})
POD2 = _pod([], None, {EXT: "1"}, {EXT + "1": "2"})
POD_INIT = _pod([{EXT + "init": "2"}], None, {EXT: "1"})
POD_INIT2 = _pod([{EXT + "init": "1"}, {EXT + "init": "2"}], None, {EXT: "1"})
POD_INIT3 = _pod([{EXT + "init": "1"}, {EXT + "init": "1"}, {EXT + "init": "2"}], 1, {EXT: "1"})


@pytest.mark.parametrize("case,p,needs,want", [
    ("nil", POD1, (), []),
    ("one resource match", POD1, (EXT,), [("container-0-request-0", "class", 1)]),
    ("two resources match", POD1, (EXT, EXT + "1"),
     [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)]),
    ("two containers match", POD2, (EXT, EXT + "1"),
     [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)]),
    ("one init container, one regular container", POD_INIT, (EXT, EXT + "init"),
     [("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)]),
    ("two init containers, one regular container", POD_INIT2, (EXT, EXT + "init"),
     [("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)]),
    ("three init containers, one sidecar, one regular container", POD_INIT3, (EXT, EXT + "init"),
     [("container-1-request-0", "classInit", 1), ("container-2-request-0", "classInit", 2),
      ("container-3-request-0", "class", 1)]),
])
def test_create_requests(case: str, p: Pod, needs: tuple[str, ...], want: list[Any]) -> None:
    """extendeddynamicresources_test.go Test_createRequestsAndMappings_requests, case named `case`."""
    assert _requests(p, needs) == want


def test_create_mappings() -> None:
    """extendeddynamicresources_test.go Test_createRequestsAndMappings_mappings: two init containers fold into
    the larger request; a sidecar's request is reused by the init container before it."""
    _, maps = extended_requests(POD_INIT2, (EXT, EXT + "init"), _classes(), "1.36")
    assert [(m.container_name, m.resource_name, m.request_name) for m in maps] == [
        ("con0", EXT, "container-2-request-0"),
        ("init-con0", EXT + "init", "container-1-request-0"),
        ("init-con1", EXT + "init", "container-1-request-0")]
    _, maps = extended_requests(POD_INIT3, (EXT, EXT + "init"), _classes(), "1.36")
    assert [(m.container_name, m.request_name) for m in maps] == [
        ("con0", "container-3-request-0"), ("sidecar-con1", "container-1-request-0"),
        ("init-con0", "container-1-request-0"), ("init-con2", "container-2-request-0")]


def test_134_gives_every_container_its_own_request() -> None:
    """Before PR #134882 (1.34): one request per (container, resource), init containers included."""
    assert _requests(POD_INIT2, (EXT, EXT + "init"), "1.34") == [
        ("container-0-request-0", "classInit", 1), ("container-1-request-0", "classInit", 2),
        ("container-2-request-0", "class", 1)]


def test_init_container_reuses_the_regular_containers_device_on_a_one_device_node() -> None:
    """The issue's symptom: an init container and a regular container asking one device each fit on a
    one-device node (upstream: one request, the init container mapped onto it); drasim used to ask two."""
    cls = device_class({"metadata": {"name": "gpu.nvidia.com"}, "spec": {
        "extendedResourceName": "nvidia.com/gpu",
        "selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]}})
    state = ClusterState.from_objects([cls, node("n1"), gpu_slice("n1", [gpu(0)])])
    p = build(Pod, {"metadata": {"name": "p", "namespace": "default", "uid": "u"}, "spec": {
        "initContainers": [{"name": "init", "resources": {"requests": {"nvidia.com/gpu": "1"}}}],
        "containers": [{"name": "main", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}})
    state.add(p)
    sched = Scheduler()
    result = sched.schedule_one(state, p)
    assert result.status == "Scheduled", result.message
    allocation = next(iter(result.allocations.values()))
    assert [r.request for r in allocation.devices.results] == ["container-1-request-0"]
    assert result.extended_status is not None
    assert [(m.container_name, m.request_name) for m in result.extended_status.request_mappings] == [
        ("main", "container-1-request-0"), ("init", "container-1-request-0")]
