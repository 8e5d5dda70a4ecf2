"""Names and UIDs where Kubernetes draws them at random, derived from SHA-256 instead (the same every run).

* A generated name is `generateName` + 5 characters. The API server draws them at random from
  `bcdfghjklmnpqrstvwxz2456789` (no vowels, no 0/1/3); drasim takes them from the same alphabet, from the
  SHA-256 of the parts: for a claim `(seed, namespace, pod name, pod claim name, attempt)`, `attempt` starting
  at 0 and increased only when the name is taken; for a workload's pod `(seed, namespace, owner name, n)`.
* Objects without a UID get `deterministic_uid(...)`: an RFC 4122 version-4-shaped UUID from the SHA-256 of
  the parts (for pods: `seed, "Pod", namespace, name, n`, with `n` increased while the UID is still
  referenced by some claim, so that a replacement pod under the same name is never mistaken for the old one).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

__all__ = [
    "GENERATE_NAME_MAX",
    "SUFFIX_ALPHABET",
    "claim_generate_name",
    "claim_name",
    "claim_suffix",
    "claim_uid",
    "deterministic_uid",
    "generated_suffix",
    "hash_chars",
    "pod_uid",
]

# generateName is kept this short so that name + 5 random characters fit a 63-character label.
GENERATE_NAME_MAX = 57
# The characters apimachinery's random suffixes are drawn from.
SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_sha256 = hashlib.sha256


def _digest(parts: Iterable[object]) -> bytes:
    return _sha256("\x00".join(map(str, parts)).encode()).digest()


def hash_chars(parts: Sequence[object], length: int) -> str:
    """`length` characters of `SUFFIX_ALPHABET` derived from the SHA-256 of `parts` (at most 50)."""
    return _chars(_digest(parts), length)


def deterministic_uid(*parts: object) -> str:
    """A UUID (lower-case, 36 characters, version 4 layout) derived from `parts`."""
    return _uid(_digest(parts))


# The per-object names and UIDs (four SHA-256 a replica: its name and UID, its claim's name and UID) spell the
# text `_digest` joins as one f-string and take the 5-character case through a table: the same bytes hashed,
# the same digits, for half the cost (tests/controllers/test_deterministic_uid.py holds them equal).

def generated_suffix(seed: int, namespace: str, owner: str, n: int) -> str:
    """`hash_chars((seed, namespace, owner, n), 5)`: the suffix of the `n`th pod a ReplicaSet or Job creates."""
    return _chars5(_sha256(f"{seed!s}\x00{namespace!s}\x00{owner!s}\x00{n!s}".encode()).digest())


def pod_uid(seed: int, namespace: str, name: str, n: int) -> str:
    """`deterministic_uid(seed, "Pod", namespace, name, n)`: a created pod's UID."""
    return _uid(_sha256(f"{seed!s}\x00Pod\x00{namespace!s}\x00{name!s}\x00{n!s}".encode()).digest())


def claim_uid(seed: int, namespace: str, name: str) -> str:
    """`deterministic_uid(seed, "ResourceClaim", namespace, name)`: a generated claim's UID."""
    return _uid(_sha256(f"{seed!s}\x00ResourceClaim\x00{namespace!s}\x00{name!s}".encode()).digest())


def _chars(digest: bytes, length: int) -> str:
    base = len(SUFFIX_ALPHABET)
    # The first `length` base-`base` digits of the digest depend only on it modulo base**length: one wide
    # division, then small ones.
    value = int.from_bytes(digest, "big") % base**length
    out = []
    for _ in range(length):
        value, digit = divmod(value, base)
        out.append(SUFFIX_ALPHABET[digit])
    return "".join(out)


def _chars5(digest: bytes) -> str:
    # `_chars(digest, 5)` two digits at a time: digits least significant first, as the loop appends them.
    value = int.from_bytes(digest, "big") % _BASE5
    return _PAIRS[value % _PAIR] + _PAIRS[value // _PAIR % _PAIR] + SUFFIX_ALPHABET[value // (_PAIR * _PAIR)]


def _uid(digest: bytes) -> str:
    # str(uuid.UUID(bytes=digest[:16], version=4)) by hand (one per pod and claim; the class costs several
    # times more): in hex, the version nibble 4 at character 12 and the RFC 4122 variant bits 10 over the
    # top two bits of character 16, then 8-4-4-4-12.
    h = digest[:16].hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


_PAIR = len(SUFFIX_ALPHABET) ** 2
_BASE5 = len(SUFFIX_ALPHABET) ** 5
_PAIRS = [SUFFIX_ALPHABET[i % len(SUFFIX_ALPHABET)] + SUFFIX_ALPHABET[i // len(SUFFIX_ALPHABET)] for i in range(_PAIR)]
_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def claim_generate_name(pod_name: str, pod_claim_name: str) -> str:
    """`<pod>-<pod claim>-`; over 57 characters both parts shrink proportionally and join without the
    trailing `-` (spec §6.1 step 3)."""
    base = f"{pod_name}-{pod_claim_name}-"
    if len(base) <= GENERATE_NAME_MAX:
        return base
    pod_part = pod_name[: len(pod_name) * GENERATE_NAME_MAX // len(base)]
    claim_part = pod_claim_name[: len(pod_claim_name) * GENERATE_NAME_MAX // len(base)]
    return f"{pod_part}-{claim_part}"


def claim_name(namespace: str, pod_name: str, pod_claim_name: str, *, seed: int = 0, attempt: int = 0) -> str:
    """The name drasim's "API server" gives the claim generated for `pod_claim_name` of the pod."""
    return claim_generate_name(pod_name, pod_claim_name) + claim_suffix(seed, namespace, pod_name, pod_claim_name,
                                                                         attempt)


def claim_suffix(seed: int, namespace: str, pod_name: str, pod_claim_name: str, attempt: int) -> str:
    """`hash_chars((seed, namespace, pod name, pod claim name, attempt), 5)`."""
    return _chars5(_sha256(f"{seed!s}\x00{namespace!s}\x00{pod_name!s}\x00{pod_claim_name!s}\x00{attempt!s}"
                           .encode()).digest())
