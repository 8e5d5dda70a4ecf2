"""`check_json_depth`'s level peeling agrees with a running count of the brackets on any bracket string."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.errors import InputError
from drasim.sources.jsondepth import MAX_DEPTH, _balanced_depth, check_json_depth
from drasim.sources.jsonkeys import compact_json
from hypothesis_budget import examples


def _running_depth(structure: bytes) -> int:
    return max(itertools.accumulate(1 if c in b"[{" else -1 if c in b"]}" else 0 for c in structure), default=0)


@st.composite
def nested(draw: st.DrawFn, depth: int = 0) -> bytes:
    """Balanced brackets, sometimes deeper than MAX_DEPTH, sometimes with a stray bracket or quote."""
    if depth > 3 and draw(st.booleans()):
        return b""
    parts = [draw(nested(depth + 1)) for _ in range(draw(st.integers(0, 3 if depth < 6 else 0)))]
    opening = draw(st.sampled_from([b"[", b"{"]))
    return opening + b"".join(parts) + (b"]" if opening == b"[" else b"}")


@settings(max_examples=examples(300))
@given(nested(), st.integers(0, MAX_DEPTH + 3), st.sampled_from([b"", b"[", b"}", b'"', b"]["]))
def test_peeling_matches_the_running_count(inner: bytes, wrap: int, stray: bytes) -> None:
    structure = b"{" * wrap + inner + stray + b"]" * wrap
    depth = _balanced_depth(structure)
    if depth is not None:  # None: the exact walk decides
        assert depth == _running_depth(structure) <= MAX_DEPTH
    elif not stray and _running_depth(structure) <= MAX_DEPTH:
        raise AssertionError("a balanced structure within the limit must be answered")


def _depth_outcome(data: bytes, compact: bytes | None) -> str | None:
    try:
        check_json_depth(data, source="x.json", compact=compact)
    except InputError as err:
        return str(err)
    return None


@settings(max_examples=examples(200))
@given(st.lists(st.sampled_from([b"[", b"]", b"{", b"}", b'"', b"\\", b" ", b"\n", b"\t", b"a", b":", b","]),
                max_size=40), st.integers(0, MAX_DEPTH + 2))
def test_the_compact_text_gives_the_same_answer(tokens: list[bytes], wrap: int) -> None:
    """`check_json_depth` reading `compact_json` of the text (when it has no escape) answers as on the text,
    malformed texts included: same error, same line and column."""
    data = b"[ \n" * wrap + b"".join(tokens) + b"]" * wrap
    assert _depth_outcome(data, compact_json(data)) == _depth_outcome(data, None)
