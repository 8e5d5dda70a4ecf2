"""`deterministic_uid` is `str(uuid.UUID(bytes=digest[:16], version=4))`; `hash_chars`, the lowest digits; the
per-object shortcuts (pod and claim names and UIDs) equal those general forms."""

from __future__ import annotations

import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.controllers.names import (
    SUFFIX_ALPHABET,
    _digest,
    claim_generate_name,
    claim_name,
    claim_uid,
    deterministic_uid,
    generated_suffix,
    hash_chars,
    pod_uid,
)
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


_NAME = st.text(max_size=70)
_SEED = st.integers(-(1 << 40), 1 << 40)
_N = st.integers(0, 1 << 40)


@settings(max_examples=examples(500))
@given(_SEED, _NAME, _NAME, _N)
def test_a_created_pod_s_suffix_and_uid_are_the_general_ones(seed: int, ns: str, name: str, n: int) -> None:
    assert generated_suffix(seed, ns, name, n) == hash_chars((seed, ns, name, n), 5)
    assert pod_uid(seed, ns, name, n) == deterministic_uid(seed, "Pod", ns, name, n)


@settings(max_examples=examples(500))
@given(_SEED, _NAME, _NAME, _NAME, _N)
def test_a_generated_claim_s_name_and_uid_are_the_general_ones(seed: int, ns: str, pod: str, entry: str,
                                                             attempt: int) -> None:
    name = claim_name(ns, pod, entry, seed=seed, attempt=attempt)
    assert name == claim_generate_name(pod, entry) + hash_chars((seed, ns, pod, entry, attempt), 5)
    assert claim_uid(seed, ns, name) == deterministic_uid(seed, "ResourceClaim", ns, name)


def test_known_names_stay() -> None:
    """Pinned like the UID above: generated names are in every golden output."""
    assert generated_suffix(0, "default", "rs", 0) == "2b55n"
    assert claim_name("default", "p", "gpu") == "p-gpu-qxm57"
    assert claim_uid(0, "default", "p-gpu-x") == "81d37f1a-f016-4cf0-9b4c-56ffd357adf7"
