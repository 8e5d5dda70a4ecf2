"""What `drasim simulate` shows of a real cluster's record: pod conditions, events, per-plugin scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_timeline import DRAIN  # the demo's drain Timeline, one copy

from drasim.sim.report import _free_stamp
from hypothesis_budget import examples


def _drasim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "drasim.cli.main", *args], capture_output=True, text=True,
                          timeout=300)


def _items(tmp_path: Path, output: str = "json") -> list[dict[str, Any]]:
    from drasim.demo import demo_paths
    drain = tmp_path / "drain.yaml"
    drain.write_text(DRAIN)
    args = [a for p in demo_paths() for a in ("-f", str(p))]
    # DeviceTaintRules are served only with their gate on in 1.36 (off by default).
    proc = _drasim("simulate", *args, "-f", str(drain), "-o", output, "--feature-gates", "DRADeviceTaintRules=true")
    assert proc.returncode == 0, proc.stderr
    if output == "json":
        return json.loads(proc.stdout)["items"]  # type: ignore[no-any-return]
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def test_json_pod_conditions_events_and_scores(tmp_path: Path) -> None:
    """schedule_one.go handleSchedulingFailure: PodScheduled=False reason Unschedulable with the FitError
    message, event Warning FailedScheduling; the binding sets PodScheduled=True and the scheduler records
    Normal Scheduled "Successfully assigned ns/pod to node"; device_taint_eviction.go addConditionAndDeletePod:
    DisruptionTarget=True reason DeletionByDeviceTaintManager before the deletion."""
    items = _items(tmp_path)
    pods = {(i["metadata"]["namespace"], i["metadata"]["name"]): i for i in items if i["kind"] == "Pod"}
    pending = pods[("default", "urgent-training")]
    cond = {c["type"]: c for c in pending["status"]["conditions"]}["PodScheduled"]
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    assert cond["message"].startswith("0/5 nodes are available:")
    running = next(p for p in pods.values() if p["spec"].get("nodeName") and not p["metadata"].get(
        "deletionTimestamp"))
    assert {c["type"]: c["status"] for c in running["status"]["conditions"]}["PodScheduled"] == "True"
    evicted = [p for p in pods.values() if any(c["type"] == "DisruptionTarget"
                                               for c in p.get("status", {}).get("conditions", []))]
    assert evicted and all(p["metadata"].get("deletionTimestamp") for p in evicted)
    disruption = {c["type"]: c for c in evicted[0]["status"]["conditions"]}["DisruptionTarget"]
    assert (disruption["reason"], disruption["message"]) == (
        "DeletionByDeviceTaintManager", "Device Taint manager: deleting due to NoExecute taint")

    events = [i for i in items if i["kind"] == "Event"]
    failed = [e for e in events if e["reason"] == "FailedScheduling"
              and e["involvedObject"]["name"] == "urgent-training"]
    assert len(failed) == 1 and failed[0]["type"] == "Warning" and failed[0]["count"] >= 1
    assert failed[0]["message"] == cond["message"]
    assert failed[0]["source"] == {"component": "default-scheduler"}
    scheduled = [e for e in events if e["reason"] == "Scheduled"]
    assert scheduled and all(e["message"].startswith("Successfully assigned default/") for e in scheduled)
    evictions = [e for e in events if e["reason"] == "DeviceTaintManagerEviction"]
    assert {e["involvedObject"]["name"] for e in evictions} == {p["metadata"]["name"] for p in evicted}
    assert all(e["involvedObject"].get("uid") for e in evictions)
    assert len({e["metadata"]["name"] for e in events}) == len(events)

    scores = next(i for i in items if i["kind"] == "SchedulingScores")
    entry = scores["pods"][0]
    node = entry["nodes"][0]
    assert node["total"] == sum(node["plugins"].values())
    assert {"TaintToleration", "NodeResourcesFit", "DynamicResources"} <= set(node["plugins"])


def test_yaml_carries_the_same(tmp_path: Path) -> None:
    kinds = {d["kind"] for d in _items(tmp_path, "yaml")}
    assert {"Pod", "Event", "SchedulingScores"} <= kinds


def test_wide_shows_plugin_scores_and_events() -> None:
    proc = _drasim("simulate", "-o", "wide")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Scores per plugin" in out
    header = next(line for line in out.splitlines() if line.startswith("POD") and "TOTAL" in line)
    assert "TaintToleration" in header and "DynamicResources" in header
    assert "kubectl get events:" in out and "FailedScheduling" in out and "pod/urgent-training" in out


@given(st.lists(st.tuples(st.sampled_from(["a", "a.1", "b"]), st.integers(0, 40)), max_size=60))
@settings(max_examples=examples(300))
def test_event_names_take_the_first_free_stamp(events: list[tuple[str, int]]) -> None:
    """Event names are `<object>.<hex stamp>`, bumping the stamp past taken names, as one linear probe does."""
    seen_naive: set[str] = set()
    skip: dict[tuple[str, int], int] = {}
    for obj, stamp in events:
        naive = stamp
        while f"{obj}.{naive:x}" in seen_naive:
            naive += 1
        seen_naive.add(f"{obj}.{naive:x}")
        got = _free_stamp(skip, obj, stamp)
        skip[(obj, got)] = got + 1
        assert got == naive
