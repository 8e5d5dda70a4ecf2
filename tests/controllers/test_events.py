"""Events compare and hash by value (callers drop repeats through sets), though not frozen."""

from __future__ import annotations

from drasim.cluster import EPOCH
from drasim.controllers.events import NORMAL, Event


def test_events_are_equal_and_hash_alike_by_value() -> None:
    a = Event(EPOCH, NORMAL, "Pod/default/p", "CreatedResourceClaim", "m")
    b = Event(EPOCH, NORMAL, "Pod/default/p", "CreatedResourceClaim", "m")
    c = Event(EPOCH, NORMAL, "Pod/default/p", "CreatedResourceClaim", "other")
    assert a == b and hash(a) == hash(b) and a != c
    assert len({a, b, c}) == 2
    assert str(a) == "2026-01-01T00:00:00+00:00 Normal Pod/default/p CreatedResourceClaim: m"
