"""The slice cache's per-request keys (`SliceCache.request_shapes`, kept by `_Run._know`) change no answer
(hypothesis), and an entry is used only for the very objects it was made for."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from test_usable_scan import NODE, _calls, _one_pool, _outcome

from drasim.allocator import AllocatedState, AllocationError, Allocator, Features
from drasim.allocator.cache import SliceCache
from hypothesis_budget import examples


def _sequence(call: tuple[Any, ...], keep: bool) -> list[tuple[Any, ...]]:
    """The first claims, the later ones, then the first ones again (the same request objects: the memo
    hits), on one slice cache; without `keep` the memo is emptied before every call."""
    slices, classes, first, second, in_use, features, max_steps = call
    del in_use
    cache = SliceCache(slices)
    out = []
    for claims in (first, second, first):
        if not keep:
            cache.request_shapes.clear()
        alloc = Allocator(features, AllocatedState(), classes, cache, max_steps=max_steps)
        out.append(_outcome(alloc, claims)[0])
    return out


@settings(max_examples=examples(200))
@given(_calls())
def test_request_shapes_change_nothing(call: tuple[Any, ...]) -> None:
    assert _sequence(call, True) == _sequence(call, False)


def test_an_entry_for_other_objects_under_the_same_ids_is_not_used() -> None:
    """An id() can be reused once its object is gone: the entry must name the very class and request."""
    devs = [{"name": "d0", "attributes": {"other": {"int": 1}}}]
    slices, classes, claim = _one_pool(devs, 1)
    cache = SliceCache(slices)
    features = Features()
    request = claim.spec.devices.requests[0].exactly
    key = (id(features), id(classes["gpu"]), id(request))
    # A forged entry under these ids whose verdict key would make the device selectable (no selector).
    forged_selectors = (features.device_binding_and_status, (), ())
    cache.request_shapes[key] = (object(), object(), object(), forged_selectors, (forged_selectors,))
    view = cache.view(NODE, features)
    view.verdicts[forged_selectors] = [None] * len(view.candidates)  # "selectable", under the forged key
    # The claim's real selector reads an attribute d0 lacks: a CEL runtime error, not the forged verdict.
    with pytest.raises(AllocationError, match="claim ns/c: selector #0: CEL runtime error"):
        Allocator(features, AllocatedState(), classes, cache).allocate(NODE, [claim])
    entry = cache.request_shapes[key]
    assert entry[0] is features and entry[1] is classes["gpu"] and entry[2] is request
