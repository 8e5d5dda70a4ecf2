"""The default score plugins' formulas and normalisations (scheduler-core §7, dra-semantics §5.5)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from drasim.api.resource import ResourceClaim

MAX_NODE_SCORE = 100
FIRST_AVAILABLE_MAX = 8  # FirstAvailableDeviceRequestMaxSize

TAINT = "TaintToleration"
AFFINITY = "NodeAffinity"
FIT = "NodeResourcesFit"
SPREAD = "PodTopologySpread"
DRA = "DynamicResources"
BALANCED = "NodeResourcesBalancedAllocation"
# Default profile weights (§2.2). ImageLocality (weight 1) is left out: nodes carry no image lists in
# drasim, so it scores 0 everywhere; InterPodAffinity and VolumeBinding skip without their inputs.
WEIGHTS: dict[str, int] = {TAINT: 3, AFFINITY: 2, FIT: 1, SPREAD: 2, DRA: 2, BALANCED: 1}


def least_allocated(alloc_cpu: int, alloc_mem: int, req_cpu: int, req_mem: int) -> int:
    """LeastAllocated over cpu and memory (weights 1); `req_*` already include the pod (non-zero values)."""
    total = weights = 0
    for alloc, req in ((alloc_cpu, req_cpu), (alloc_mem, req_mem)):
        if alloc == 0:
            continue
        total += 0 if req > alloc else (alloc - req) * MAX_NODE_SCORE // alloc
        weights += 1
    return total // weights if weights else 0


def _balance(fractions: Sequence[float]) -> int:
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    else:
        std = 0.0
    return int((1 - std) * MAX_NODE_SCORE)


def balanced_allocation(alloc_cpu: int, alloc_mem: int, used_cpu: int, used_mem: int, pod_cpu: int,
                        pod_mem: int) -> int:
    """1.36 BalancedAllocation: 50 + (50 + balance with the pod - balance without it) // 2 (real requests)."""
    with_pod: list[float] = []
    without: list[float] = []
    for alloc, used, pod in ((alloc_cpu, used_cpu, pod_cpu), (alloc_mem, used_mem, pod_mem)):
        if alloc == 0:
            continue
        with_pod.append(min(1.0, (used + pod) / alloc))
        without.append(min(1.0, used / alloc))
    half = MAX_NODE_SCORE // 2
    return half + (half + _balance(with_pod) - _balance(without)) // 2


def default_normalize(raw: Sequence[int], reverse: bool = False) -> list[int]:
    """helper.DefaultNormalizeScore(100, reverse)."""
    top = max(raw, default=0)
    if top == 0:
        return [MAX_NODE_SCORE if reverse else 0 for _ in raw]
    out = [MAX_NODE_SCORE * s // top for s in raw]
    return [MAX_NODE_SCORE - s for s in out] if reverse else out


def spread_weight(size: int) -> float:
    """topologyNormalizingWeight: ln(domains + 2)."""
    return math.log(size + 2)


def spread_raw(terms: Sequence[tuple[int, int, float]]) -> int:
    """Σ over the constraints the node has a label for of count·weight + (maxSkew - 1), rounded half up."""
    score = 0.0
    for count, max_skew, weight in terms:
        score += count * weight + (max_skew - 1)
    return math.floor(score + 0.5)  # Go math.Round (half away from zero; score >= 0)


def spread_normalize(raw: Sequence[int], ignored: Sequence[bool]) -> list[int]:
    """Fewest matching pods -> 100: 100·(max + min - raw) // max over the non-ignored nodes."""
    kept = [r for r, ign in zip(raw, ignored, strict=True) if not ign] if any(ignored) else raw
    if not kept:
        return [0 for _ in raw]
    lo, hi = min(kept), max(kept)
    if hi == 0:
        return [0 if ign else MAX_NODE_SCORE for ign in ignored]
    top = hi + lo
    return [0 if ign else MAX_NODE_SCORE * (top - r) // hi for r, ign in zip(raw, ignored, strict=True)]


class ScoreError(Exception):
    """A score plugin failed: the scheduling attempt ends with an error (upstream `running Score plugins`)."""


def dra_raw(claims: Sequence[ResourceClaim], chosen: Sequence[frozenset[str]]) -> int:
    """§5.5 as 1.36 computes it: claim i of the pod is paired with allocation result i of the node.

    QUIRK (≤1.36): the pairing is positional over all of the pod's claims, while results exist only for
    the claims allocated in this cycle; running out of results is an error, a shifted pairing scores
    whatever subrequests line up.
    """
    score = 0
    for i, claim in enumerate(claims):
        if i >= len(chosen):
            raise ScoreError(f"number of allocations {len(chosen)} is smaller than number of claims")
        score += _claim_rank(claim, chosen[i])
    return score


def dra_raw_stored(claims: Sequence[ResourceClaim], chosen: Sequence[frozenset[str]], prioritized_list: bool) -> int:
    """§5.5 as 1.37 computes it: claims allocated before the cycle by their stored allocation, the others by
    this cycle's results in order; 0 without DRAPrioritizedList."""
    if not prioritized_list:
        return 0
    fresh = iter(chosen)
    score = 0
    for claim in claims:
        allocation = claim.status.allocation if claim.status is not None else None
        if allocation is not None:
            picked = frozenset(r.request for r in allocation.devices.results if "/" in r.request)
        else:
            picked = next(fresh, frozenset())
        score += _claim_rank(claim, picked)
    return score


def _claim_rank(claim: ResourceClaim, picked: frozenset[str]) -> int:
    score = 0
    for request in claim.spec.devices.requests:
        if request.exactly is not None:
            continue
        for j, sub in enumerate(request.first_available or []):
            if f"{request.name}/{sub.name}" in picked:
                score += FIRST_AVAILABLE_MAX - j
    return score
