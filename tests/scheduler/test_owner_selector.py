"""The default spreading selector (spread.owner_selector) is parsed once per selector object and follows a
replaced selector."""

from __future__ import annotations

from helpers import build, node, pod, replica_set

from drasim.api.core import LabelSelector
from drasim.cluster import ClusterState
from drasim.scheduler.cache import NodeCache
from drasim.scheduler.filters import parse_selector
from drasim.scheduler.spread import owner_selector


def test_the_owner_selector_follows_the_selector_object() -> None:
    rs = replica_set("web", {"app": "web"})
    state = ClusterState.from_objects([node("A"), rs])
    cache = NodeCache()
    p = pod("p", owner="web", labels={"app": "web"})
    first = owner_selector(cache, state, p)
    assert first == parse_selector(rs.spec.selector) and first
    assert owner_selector(cache, state, p) is first  # the replicas share the parsed form
    # A new selector object (same workload count): read again, never the old entry.
    rs.spec.selector = build(LabelSelector, {"matchLabels": {"app": "api"}})
    assert owner_selector(cache, state, p) == parse_selector(rs.spec.selector) != first
