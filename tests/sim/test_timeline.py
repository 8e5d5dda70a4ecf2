"""Timelines: durations, parsing, clear errors with file/object/path, scheduling, actions, run-for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from drasim.api.core import Pod, PodSpec
from drasim.api.meta import ObjectMeta
from drasim.api.resource import DeviceTaintRule, ResourceClaim
from drasim.cluster import EPOCH, ClusterState
from drasim.errors import InputError
from drasim.sim import timeline as tl
from drasim.sources.files import load_paths, parse_yaml

RULE = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "drain"},
        "spec": {"deviceSelector": {"driver": "gpu.example.com"}, "taint": {"key": "k", "effect": "NoExecute"}}}

TIMELINE = """
apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: maintenance}
spec:
  events:
  - at: 30s
    action: apply
    object: {apiVersion: resource.k8s.io/v1, kind: DeviceTaintRule, metadata: {name: drain},
             spec: {deviceSelector: {driver: gpu.example.com}, taint: {key: k, effect: NoExecute}}}
  - at: PT1M
    action: apply
    file: more.yaml
  - at: 5m
    action: delete
    kind: DeviceTaintRule
    name: drain
  - at: 1h30m
    action: finish
    name: train-0
    namespace: ml
    phase: Failed
  - at: "2026-01-02T00:00:00Z"
    action: delete
    kind: Pod
    name: x
"""


def parse(text: str, source: str = "tl.yaml") -> tl.Timeline:
    return tl.parse_timeline(yaml.safe_load(text), source=source)


def bad(events: list[Any], **doc: Any) -> InputError:
    body = {"apiVersion": tl.API_VERSION, "kind": "Timeline", "metadata": {"name": "t"},
            "spec": {"events": events}, **doc}
    with pytest.raises(InputError) as info:
        tl.parse_timeline(body, source="in.yaml")
    return info.value


# --- durations ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "seconds"), [
    ("30s", 30), ("5m", 300), ("1h30m", 5400), ("1.5h", 5400), ("500ms", 0.5), ("2d", 172800), ("0", 0),
    ("PT30S", 30), ("PT5M", 300), ("P1DT2H", 93600), ("P2W", 1209600), ("pt1.5s", 1.5),
    # Every unit of Go's time.ParseDuration (µ as U+00B5 and U+03BC); timedelta keeps microseconds.
    ("1ns", 0), ("1us", 0.000001), ("1µs", 0.000001), ("1μs", 0.000001), ("1500ns", 0.0000015),
    ("1m1us", 60.000001), ("2h45m30.5s", 9930.5),
])
def test_durations(text: str, seconds: float) -> None:
    assert tl.parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "5", "5 m", "m", "P", "PT", "P1DT", "-5s", "1y", "P1M", "soon"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError):
        tl.parse_duration(text)


# --- parsing -----------------------------------------------------------------------------------------

def test_parses_every_action() -> None:
    t = parse(TIMELINE)
    assert t.name == "maintenance" and t.ref == "Timeline/maintenance"
    ats = [e.at for e in t.events]
    assert ats[:4] == [timedelta(seconds=30), timedelta(minutes=1), timedelta(minutes=5), timedelta(hours=1.5)]
    assert ats[4] == datetime(2026, 1, 2, tzinfo=UTC)
    apply_inline, apply_file, delete, finish, delete_pod = (e.action for e in t.events)
    assert isinstance(apply_inline, tl.Apply) and isinstance(apply_inline.objects[0], DeviceTaintRule)
    assert apply_file == tl.Apply(file="more.yaml")
    assert delete == tl.Delete(kind="DeviceTaintRule", name="drain", namespace=None)
    assert finish == tl.Finish(name="train-0", namespace="ml", phase="Failed")
    assert delete_pod == tl.Delete(kind="Pod", name="x", namespace="default")
    assert [e.path for e in t.events][2] == "spec.events[2]"


def test_timeline_in_a_file_with_other_objects(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(RULE) + "---\n" + TIMELINE)
    loaded = load_paths([str(path)])
    assert [o.kind for o in loaded.objects] == ["DeviceTaintRule"]  # the decoder skips the timeline
    found = tl.find_timelines(parse_yaml(path.read_text(), source=str(path)), source=str(path))
    assert [t.name for t in found] == ["maintenance"]


def test_resolve_files_passes_the_file_as_written(tmp_path: Path) -> None:
    # The simulation core reads no files: the edge's loader gets `file:` as written and resolves it
    # (sources.inputs joins it to the Timeline's folder; tests/sources/test_timeline_files.py).
    (tmp_path / "more.yaml").write_text(yaml.safe_dump(RULE))
    t = parse(TIMELINE, source=str(tmp_path / "tl.yaml"))
    seen: list[str] = []

    def load(p: str) -> list[Any]:
        seen.append(p)
        return list(load_paths([str(tmp_path / p)]).objects)

    resolved = tl.resolve_files(t, load)
    assert seen == ["more.yaml"]
    action = resolved.events[1].action
    assert isinstance(action, tl.Apply) and action.file == "more.yaml" and len(action.objects) == 1
    assert isinstance(t.events[1].action, tl.Apply) and not t.events[1].action.objects  # original untouched


def test_unknown_action_names_the_path() -> None:
    err = bad([{"at": "1s", "action": "apply", "object": RULE}, {"at": "2s", "action": "restart"}])
    assert str(err) == ("in.yaml: Timeline/t: spec.events[1].action: "
                        "unknown action 'restart' (expected apply, delete, finish or setDeviceCondition)")
    assert err.exit_code == 2


def test_out_of_order_is_an_error() -> None:
    err = bad([{"at": "5m", "action": "finish", "name": "a"}, {"at": "30s", "action": "finish", "name": "b"}])
    assert err.path == "spec.events[1].at" and err.source == "in.yaml" and err.obj == "Timeline/t"
    assert "'30s' is earlier than the event before it ('5m')" in err.message


@pytest.mark.parametrize(("events", "path", "text"), [
    ([{"action": "finish", "name": "a"}], "spec.events[0].at", 'missing "at"'),
    ([{"at": 30, "action": "finish", "name": "a"}], "spec.events[0].at", "has no unit"),
    ([{"at": "soon", "action": "finish", "name": "a"}], "spec.events[0].at", "is not a duration"),
    ([{"at": "2026-01-01T00:00:00", "action": "finish", "name": "a"}], "spec.events[0].at", "needs a zone"),
    ([{"at": "1s"}], "spec.events[0].action", 'missing "action"'),
    ([{"at": "1s", "action": "finish", "name": "a", "phase": "Running"}], "spec.events[0].phase",
     "Succeeded or Failed"),
    ([{"at": "1s", "action": "finish"}], "spec.events[0].name", "missing name"),
    ([{"at": "1s", "action": "finish", "name": "a", "colour": "red"}], "spec.events[0].colour",
     'unknown field "colour"'),
    ([{"at": "1s", "action": "delete", "kind": "Gadget", "name": "a"}], "spec.events[0].kind", "unknown kind"),
    ([{"at": "1s", "action": "delete", "kind": "Node", "name": "a", "namespace": "x"}],
     "spec.events[0].namespace", "cluster-scoped"),
    ([{"at": "1s", "action": "apply"}], "spec.events[0]", "exactly one of object, objects or file"),
    ([{"at": "1s", "action": "apply", "object": RULE, "file": "x.yaml"}], "spec.events[0]", "got object, file"),
    ([{"at": "1s", "action": "apply", "objects": RULE}], "spec.events[0].objects", "expected a list"),
    ([{"at": "1s", "action": "apply", "object": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}}],
     "spec.events[0].object", "cannot apply: kind Secret (v1) is not used by drasim"),
    (["1s"], "spec.events[0]", "expected a mapping"),
])
def test_event_errors(events: list[Any], path: str, text: str) -> None:
    err = bad(events)
    assert err.path == path and text in err.message, str(err)


def test_inline_object_errors_carry_the_timeline_and_field() -> None:
    broken = {**RULE, "spec": {"taint": {"key": "k", "effect": "NoExecute", "colour": 1}}}
    err = bad([{"at": "1s", "action": "apply", "objects": [RULE, broken]}])
    assert err.obj is not None and err.obj.startswith("Timeline/t spec.events[0].objects[1]")
    assert err.path == "spec.taint.colour"


def test_document_level_errors() -> None:
    assert bad([], apiVersion="drasim.dev/v2").path == "apiVersion"
    assert bad([], status={}).path == "status"
    with pytest.raises(InputError, match="expected a list of events"):
        tl.parse_timeline({"apiVersion": tl.API_VERSION, "kind": "Timeline", "spec": {}}, source="x")


# --- scheduling ----------------------------------------------------------------------------------

def test_schedule_merges_timelines_in_time_order() -> None:
    a = tl.parse_timeline({"apiVersion": tl.API_VERSION, "kind": "Timeline", "metadata": {"name": "a"},
                           "spec": {"events": [{"at": "1m", "action": "finish", "name": "a1"},
                                               {"at": "3m", "action": "finish", "name": "a3"}]}}, source="a")
    b = tl.parse_timeline({"apiVersion": tl.API_VERSION, "kind": "Timeline", "metadata": {"name": "b"},
                           "spec": {"events": [{"at": "1m", "action": "finish", "name": "b1"},
                                               {"at": "2m", "action": "finish", "name": "b2"}]}}, source="b")
    out = tl.schedule([a, b], EPOCH)
    assert [(s.time - EPOCH, s.action.name) for s in out] == [  # type: ignore[union-attr]
        (timedelta(minutes=1), "a1"), (timedelta(minutes=1), "b1"), (timedelta(minutes=2), "b2"),
        (timedelta(minutes=3), "a3")]


def test_schedule_checks_mixed_absolute_and_relative_order() -> None:
    t = tl.parse_timeline({"apiVersion": tl.API_VERSION, "kind": "Timeline", "metadata": {"name": "m"},
                           "spec": {"events": [{"at": "2h", "action": "finish", "name": "a"},
                                               {"at": "2026-01-01T01:00:00Z", "action": "finish", "name": "b"}]}},
                          source="m.yaml")
    with pytest.raises(InputError) as info:
        tl.schedule([t], EPOCH)
    assert info.value.path == "spec.events[1].at" and info.value.source == "m.yaml"
    assert len(tl.schedule([t], EPOCH - timedelta(hours=5))) == 2


# --- running actions -----------------------------------------------------------------------------

def test_apply_stamps_time_generation_and_namespace() -> None:
    state = ClusterState(now=EPOCH + timedelta(seconds=30))
    action = parse(TIMELINE).events[0].action
    events = tl.execute(state, action)
    assert [(e.object, e.reason, e.message) for e in events] == [("DeviceTaintRule/drain", "Applied", "created")]
    r = state.taint_rules["drain"]
    assert r.spec.taint.time_added == state.now and r.metadata.generation == 1
    assert r.metadata.creation_timestamp == state.now
    assert isinstance(action, tl.Apply) and action.objects[0].spec.taint.time_added is None  # type: ignore[union-attr]
    state.now += timedelta(minutes=1)
    assert tl.execute(state, action)[0].message == "configured"
    assert r is not state.taint_rules["drain"]
    assert state.taint_rules["drain"].metadata.generation == 1  # same spec: same generation, same timeAdded
    assert state.taint_rules["drain"].spec.taint.time_added == EPOCH + timedelta(seconds=30)
    changed = DeviceTaintRule(metadata=ObjectMeta(name="drain"), spec=r.spec)
    changed.spec.taint.effect = "None"
    tl.execute(state, tl.Apply(objects=(changed,)))
    assert state.taint_rules["drain"].metadata.generation == 2
    assert state.taint_rules["drain"].spec.taint.time_added == state.now


def test_apply_pod_defaults_namespace_and_replaces_workloads() -> None:
    state = ClusterState(now=EPOCH)
    tl.execute(state, tl.Apply(objects=(Pod(metadata=ObjectMeta(name="p"), spec=PodSpec()),)))
    assert state.pods[("default", "p")].metadata.namespace == "default"
    job = yaml.safe_load("{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {parallelism: 1}}")
    t = tl.parse_timeline({"apiVersion": tl.API_VERSION, "kind": "Timeline", "spec": {"events": [
        {"at": "0", "action": "apply", "object": job}, {"at": "0", "action": "apply", "object": job}]}}, source="x")
    for ev in t.events:
        tl.execute(state, ev.action)
    assert len(state.workloads) == 1


def test_delete_and_finish() -> None:
    pod = Pod(metadata=ObjectMeta(name="train-0", namespace="ml"), spec=PodSpec(node_name="n"))
    claim = ResourceClaim(metadata=ObjectMeta(name="c", namespace="ml", finalizers=["x"]))
    state = ClusterState.from_objects([pod, claim], now=EPOCH)
    [ev] = tl.execute(state, tl.Finish(name="train-0", namespace="ml", phase="Failed"))
    assert (ev.reason, ev.object) == ("Failed", "Pod/ml/train-0")
    assert pod.status is not None and pod.status.phase == "Failed"
    [ev] = tl.execute(state, tl.Delete(kind="ResourceClaim", name="c", namespace="ml"))
    assert ev.reason == "Deleting" and claim.metadata.deletion_timestamp == EPOCH
    [ev] = tl.execute(state, tl.Delete(kind="Pod", name="train-0", namespace="ml"))
    assert ev.reason == "Deleted" and not state.pods
    [ev] = tl.execute(state, tl.Delete(kind="Pod", name="train-0", namespace="ml"))
    assert (ev.kind, ev.reason) == ("Warning", "NotFound")
    assert tl.execute(state, tl.Finish(name="nobody"))[0].kind == "Warning"


def test_unresolved_file_is_an_error() -> None:
    with pytest.raises(InputError, match="resolve_files"):
        tl.execute(ClusterState(), tl.Apply(file="x.yaml"))


# --- run time ------------------------------------------------------------------------------------

def running(name: str, run_for: str | None, node: str | None = "n") -> Pod:
    ann = {tl.RUN_FOR_ANNOTATION: run_for} if run_for else {}
    return Pod(metadata=ObjectMeta(name=name, namespace="ml", uid=f"uid-{name}", annotations=ann),
               spec=PodSpec(node_name=node))


def test_run_for_finishes_pods_after_their_run_time() -> None:
    a, b, c = running("a", "10m"), running("b", "PT30S", node=None), running("c", None)
    state = ClusterState.from_objects([a, b, c], now=EPOCH)
    runs = tl.RunTracker()
    runs.observe(state)
    assert runs.next_finish(state) == EPOCH + timedelta(minutes=10)
    state.now = EPOCH + timedelta(minutes=1)
    b.spec.node_name = "n"
    runs.observe(state)
    assert runs.next_finish(state) == EPOCH + timedelta(minutes=1, seconds=30)
    state.now = EPOCH + timedelta(minutes=10)
    events = runs.finish_due(state)
    assert [(e.object, e.reason) for e in events] == [("Pod/ml/a", "Succeeded"), ("Pod/ml/b", "Succeeded")]
    assert a.status is not None and a.status.phase == "Succeeded"
    assert c.status is None and runs.next_finish(state) is None


def test_bad_run_for_names_the_pod() -> None:
    with pytest.raises(InputError) as info:
        tl.run_for(running("a", "ten minutes"))
    assert info.value.obj == "Pod/ml/a" and info.value.path == f"metadata.annotations[{tl.RUN_FOR_ANNOTATION}]"


def test_applied_pod_never_takes_the_uid_of_an_old_reservation() -> None:
    from drasim.api.resource import ResourceClaimConsumerReference, ResourceClaimStatus

    claim = ResourceClaim(metadata=ObjectMeta(name="c"), status=ResourceClaimStatus(
        reserved_for=[ResourceClaimConsumerReference(resource="pods", name="p", uid="old-uid")]))
    state = ClusterState.from_objects([claim], now=EPOCH)
    tl.execute(state, tl.Apply(objects=(Pod(metadata=ObjectMeta(name="p"), spec=PodSpec()),)))
    assert state.pods[("default", "p")].metadata.uid not in (None, "old-uid")


def test_one_apply_of_many_pods_gives_the_uids_of_one_apply_per_pod() -> None:
    """The UIDs an apply avoids are computed once and kept up to date: the same UIDs as applying each object
    alone, with pods replaced, claims naming UIDs, and pods sharing names in between."""
    from drasim.api.meta import OwnerReference
    from drasim.controllers.resourceclaim import deterministic_uid

    def pod(name: str, uid: str | None = None) -> Pod:
        return Pod(metadata=ObjectMeta(name=name, uid=uid), spec=PodSpec())

    # A claim owned by "b" under the UID "b" would get first: "b" gets the next one.
    owner = OwnerReference(api_version="v1", kind="Pod", name="b", uid=deterministic_uid(0, "Pod", "default", "b", 0))
    objects = (pod("a"), pod("keep", "given"), pod("a"), ResourceClaim(metadata=ObjectMeta(
        name="c", owner_references=[owner])), pod("b"), *(pod(f"p-{i}") for i in range(20)), pod("b"))

    def uids(actions: list[tl.Apply]) -> dict[tuple[str, str], str | None]:
        state = ClusterState.from_objects([pod("keep", "old")], now=EPOCH)
        for action in actions:
            tl.execute(state, action)
        return {k: p.metadata.uid for k, p in state.pods.items()}

    together = uids([tl.Apply(objects=objects)])
    assert together == uids([tl.Apply(objects=(o,)) for o in objects])
    assert together[("default", "b")] != owner.uid
