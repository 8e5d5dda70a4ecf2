"""The scheduler cache's spread selector indexes, found per pod by namespace and label (issue #27), count
exactly the pods a match of every pod against every selector counts, through adds, relabels and deletes."""

from __future__ import annotations

from typing import Any

from helpers import build, node
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.core import Pod
from drasim.cluster import ClusterState
from drasim.scheduler.cache import NodeCache
from drasim.scheduler.filters import counts_for_spread, parse_selector
from hypothesis_budget import examples

NODES = ["n0", "n1", "n2"]
KEYS = ["app", "tier"]
VALUES = ["a", "b"]
labels = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=2)
requirement = st.one_of(
    st.builds(lambda k, op, vs: {"key": k, "operator": op, "values": vs}, st.sampled_from(KEYS),
              st.sampled_from(["In", "NotIn"]), st.lists(st.sampled_from(VALUES), min_size=1, max_size=2)),
    st.builds(lambda k, op: {"key": k, "operator": op}, st.sampled_from(KEYS), st.sampled_from(["Exists",
                                                                                                 "DoesNotExist"])))
selector = st.one_of(st.builds(lambda m: {"matchLabels": m}, labels),
                     st.builds(lambda e: {"matchExpressions": e}, st.lists(requirement, max_size=2)))
pod_spec = st.tuples(st.sampled_from(["default", "other"]), labels, st.sampled_from([*NODES, ""]))
# After the pods: relabel pod i, delete pod i, or add one more.
edit = st.one_of(st.tuples(st.just("relabel"), st.integers(0, 30), labels),
                 st.tuples(st.just("delete"), st.integers(0, 30)), st.tuples(st.just("add"), pod_spec))
index = st.tuples(st.sampled_from(["default", "other"]), selector)


def _pod(i: int, namespace: str, lab: dict[str, str], node_name: str) -> Pod:
    return build(Pod, {"metadata": {"name": f"p{i}", "namespace": namespace, "labels": lab},
                       "spec": {"nodeName": node_name, "containers": [{"name": "c"}]}})


@settings(max_examples=examples(200))
@given(st.lists(index, min_size=1, max_size=4), st.lists(pod_spec, max_size=12), st.lists(edit, max_size=10),
       st.lists(index, max_size=4))
def test_indexes_count_what_matching_every_pod_counts(early: list[Any], pods: list[Any], edits: list[Any],
                                                     late: list[Any]) -> None:
    """Indexes made before the pods (kept incrementally) and after them (filled from the candidates)."""
    state = ClusterState()
    for name in NODES:
        state.add(node(name, labels={"zone": f"z{name[-1]}"}))
    cache = NodeCache()
    cache.sync(state, {})
    made = [(namespace, parse_selector(raw)) for namespace, raw in early]
    for namespace, sel in made:
        cache.index(namespace, sel)
    keys = []
    for i, (namespace, lab, node_name) in enumerate(pods):
        state.add(_pod(i, namespace, lab, node_name))
        keys.append((namespace, f"p{i}"))
        cache.sync(state, {})
    for j, ev in enumerate(edits):
        if ev[0] == "add":
            namespace, lab, node_name = ev[1]
            state.add(_pod(100 + j, namespace, lab, node_name))
            keys.append((namespace, f"p{100 + j}"))
        elif keys and keys[ev[1] % len(keys)] in state.pods:
            key = keys[ev[1] % len(keys)]
            if ev[0] == "relabel":
                state.pods[key].metadata.labels = dict(ev[2])
                state.pod_changed(key)
            else:
                state.delete_pod(key)
        cache.sync(state, {})
    made += [(namespace, parse_selector(raw)) for namespace, raw in late]
    for namespace, sel in made:
        idx = cache.index(namespace, sel)
        want: dict[str, int] = {}
        for pod in state.pods.values():
            if pod.spec.node_name and counts_for_spread(pod, namespace, sel):
                want[pod.spec.node_name] = want.get(pod.spec.node_name, 0) + 1
        assert {n: c for n, c in idx.by_node.items() if c} == want
