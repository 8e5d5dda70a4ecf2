"""`deterministic_uid` is `str(uuid.UUID(bytes=digest[:16], version=4))`; `hash_chars`, the lowest digits."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.controllers.resourceclaim import SUFFIX_ALPHABET, _digest, deterministic_uid, hash_chars
from hypothesis_budget import examples

_PART = st.one_of(st.text(max_size=30), st.integers(-(1 << 40), 1 << 40))


@settings(max_examples=examples(500))
@given(st.lists(_PART, max_size=6))
def test_the_uid_is_the_uuid_class_s(parts: list[object]) -> None:
    assert deterministic_uid(*parts) == str(uuid.UUID(bytes=_digest(parts)[:16], version=4))


def test_a_known_uid_stays() -> None:
    """Pinned: every pod and claim UID of every output depends on it."""
    assert deterministic_uid(0, "Pod", "default", "p", 0) == "cf4562b8-fcb4-497e-b690-6d46ed339d68"
    assert uuid.UUID(deterministic_uid("x")).version == 4


@settings(max_examples=examples(500))
@given(st.lists(_PART, max_size=6), st.integers(1, 50))
def test_hash_chars_are_the_digest_s_low_digits(parts: list[object], length: int) -> None:
    """The digits read from the digest reduced modulo base**length are the digest's own lowest digits."""
    value = int.from_bytes(_digest(parts), "big")
    digits = []
    for _ in range(length):
        value, digit = divmod(value, len(SUFFIX_ALPHABET))
        digits.append(SUFFIX_ALPHABET[digit])
    assert hash_chars(parts, length) == "".join(digits)
