"""The scores document built with shared parts (for the YAML writer) equals the plain one, and so do its bytes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.encode import yaml_objects
from drasim.api.yamlemit import dump_all
from drasim.sim.report import PodLine, scores_document

# Few names and small scores, so pods and nodes scored alike (what sharing reuses) are common.
_PLUGINS = st.dictionaries(st.sampled_from(["Fit", "Spread", "Taint", "DynamicResources"]), st.integers(0, 2),
                           max_size=3)
_NODES = st.lists(st.tuples(st.sampled_from(["n1", "n2"]), st.integers(0, 2), _PLUGINS), max_size=3)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_NODES, max_size=12))
def test_shared_scores_are_the_plain_document(scored: list[list[tuple[str, int, dict[str, int]]]]) -> None:
    lines = [PodLine(key=("default", f"p{i}"), node=None, status="Pending", score_plugins=nodes)
             for i, nodes in enumerate(scored)]
    plain = scores_document(lines)
    shared: set[int] = set()
    doc = scores_document(lines, shared=shared)
    assert doc == plain
    assert yaml_objects([], [doc], shared) == dump_all([plain])
    # Without `shared`, no two pods hold the same part (library users may change one).
    pods = plain["pods"]
    assert isinstance(pods, list)
    assert len({id(p["nodes"]) for p in pods}) == len(pods)
