"""The claim controller's shortcuts for the claims it makes equal the plain path: a full pass leaves the claims
it just made out of its claims' pass (sync_claim would find nothing to do), and stores them without defaulting
(they are as defaulting leaves them)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from test_sync_after_binding import _fingerprint, _objects, clusters

from drasim.allocator.versions import features_for_version
from drasim.api.defaults import apply_claim_defaults
from drasim.cluster import ClusterState
from drasim.controllers import resourceclaim as rc
from hypothesis_budget import examples


@settings(max_examples=examples(100), deadline=None)
@given(clusters())
def test_the_claims_a_pass_made_need_no_claim_sync_and_no_defaulting(docs: list[dict[str, Any]]) -> None:
    state = ClusterState.from_objects(_objects(docs), features=features_for_version("1.36"))
    before = set(state.claims)
    rc.sync(state)
    made = [key for key in state.claims if key not in before]
    assert all(key not in before for key in list(state.claims)[len(before):])  # new claims come last
    snapshot = _fingerprint(state, [])
    for key in sorted(made):
        assert rc.sync_claim(state, key) == []
        claim = state.claims[key]
        assert apply_claim_defaults(claim) == claim
    assert _fingerprint(state, []) == snapshot
