"""Nodes with the same answer are grouped; node selection, allocated claims and JSON rendering."""

from __future__ import annotations

import io
import json

import pytest
from explain_helpers import DRIVER, alt, claim, device_class, exact, gpu, node, slice_, state_of
from rich.console import Console

from drasim.errors import InputError
from drasim.explain import explain_claim
from drasim.explain.model import MAX_EXAMPLES
from drasim.explain.render import render_text, to_dict


def _fleet() -> list[dict]:
    docs = [device_class()]
    for n in ("n1", "n2", "n3", "n4"):
        docs += [node(n), slice_(f"{n}-s", n, [gpu("g0"), gpu("g1", "h100")])]
    # n4's a100 is taken: a different answer.
    docs.append(claim("holder", [exact("r")], ns="team", allocated=[("r", "n4", "g0")]))
    sel = {"cel": {"expression": f'device.attributes["{DRIVER}"].model == "a100"'}}
    docs.append(claim("c", [exact("r", selectors=[sel])]))
    return docs


def test_same_answers_are_grouped_and_examples_merged() -> None:
    ex = explain_claim(state_of(_fleet()), ("default", "c"))
    assert [g.nodes for g in ex.groups] == [["n1", "n2", "n3"], ["n4"]]
    assert [g.verdict.status for g in ex.groups] == ["allocated", "unsatisfiable"]
    rc = alt(ex, "r", group=0).excluded[0]
    assert rc.reason == "request-selector" and rc.count == 1
    assert rc.examples == [f"{DRIVER}/n1/g1", f"{DRIVER}/n2/g1", f"{DRIVER}/n3/g1"]
    assert len(rc.examples) <= MAX_EXAMPLES
    assert ex.allocatable_nodes == ["n1", "n2", "n3"]
    held = next(r for r in alt(ex, "r", group=1).excluded if r.reason == "in-use")
    assert held.examples == [f"{DRIVER}/n4/g0 (team/holder)"]


def test_node_restriction_and_unknown_node() -> None:
    state = state_of(_fleet())
    ex = explain_claim(state, ("default", "c"), ["n4", "n2"])
    assert [g.nodes for g in ex.groups] == [["n4"], ["n2"]]
    with pytest.raises(InputError, match="node nx not found"):
        explain_claim(state, ("default", "c"), ["nx"])
    with pytest.raises(InputError, match="resourceclaim default/nope not found"):
        explain_claim(state, ("default", "nope"))


def test_an_allocated_claim_is_replayed_on_its_node() -> None:
    docs = _fleet()
    docs[-1]["status"] = {"allocation": {
        "devices": {"results": [{"request": "r", "driver": DRIVER, "pool": "n2", "device": "g0"}]},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}}
    ex = explain_claim(state_of(docs), ("default", "c"))
    assert ex.allocated and [d.device for d in ex.allocation] == [f"{DRIVER}/n2/g0"]
    assert [g.nodes for g in ex.groups] == [["n2"]]
    # Its own device is not "in use" in the replay: it gets it again.
    assert [d.device for d in ex.groups[0].verdict.devices] == [f"{DRIVER}/n2/g0"]
    assert {e.node for e in ex.excluded_nodes} == {"n1", "n3", "n4"}


def test_nodes_from_slices_when_no_node_objects() -> None:
    docs = [d for d in _fleet() if d["kind"] != "Node"]
    ex = explain_claim(state_of(docs), ("default", "c"))
    assert sorted(n for g in ex.groups for n in g.nodes) == ["n1", "n2", "n3", "n4"]


def test_json_and_text_rendering() -> None:
    ex = explain_claim(state_of(_fleet()), ("default", "c"))
    data = to_dict(ex)
    json.dumps(data)
    assert data["kind"] == "ClaimExplanation"
    assert data["summary"] == {"nodes": 4, "allocatableNodes": ["n1", "n2", "n3"]}
    group = data["groups"][1]
    assert group["verdict"]["status"] == "unsatisfiable"
    assert group["claims"][0]["requests"][0]["alternatives"][0]["excluded"][0]["reason"] == "in-use"
    console = Console(width=160, record=True, file=io.StringIO())
    render_text(ex, console, wide=True)
    text = console.export_text()
    assert "3 nodes: n1, n2, n3" in text and "allocatable on 3 of 4 node(s)" in text
    assert "team/holder" in text and "\x1b[" not in text
