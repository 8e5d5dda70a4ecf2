"""DRA feature gates by Kubernetes release (spec §8), as lint needs them: stage, default, first release."""

from __future__ import annotations

from drasim.api.gates import ValidationFeatures
from drasim.api.profile import GATES, normalize_version, profile_for

__all__ = [
    "LINT_VERSIONS",
    "gate_available",
    "gate_history",
    "gate_on",
    "gate_stage",
    "lint_features",
    "normalize_lint_version",
]

# Releases lint knows. Before 1.34 there is no resource.k8s.io/v1; objects are linted as if converted.
LINT_VERSIONS: tuple[str, ...] = ("1.32", "1.33", "1.34", "1.35", "1.36", "1.37")

# Stage of each gate in LINT_VERSIONS order, from the release profile: "" = not in that release, "A" = alpha
# (off by default), "B-" = beta off by default, "B+" = beta on by default, "GA" = on.
_GATES: dict[str, tuple[str, ...]] = {
    name: tuple({"-": "", "GA*": "GA"}.get(g.stage(v), g.stage(v)) for v in LINT_VERSIONS)
    for name, g in GATES.items() if name != "DynamicResourceAllocation"
}

_STAGE_WORDS = {"A": "alpha", "B-": "beta (off by default)", "B+": "beta", "GA": "GA"}


def gate_stage(gate: str, version: str) -> str:
    """The gate's stage in that release (see `_GATES`); "" when the release does not have it."""
    return _GATES[gate][LINT_VERSIONS.index(version)]


def gate_on(gate: str, version: str) -> bool:
    """Whether the gate is on by default in that release."""
    return gate_stage(gate, version) in ("B+", "GA")


def gate_available(gate: str, version: str) -> bool:
    """Whether the release has the gate at all (possibly off by default)."""
    return gate_stage(gate, version) != ""


def gate_history(gate: str) -> str:
    """`alpha in 1.33, on by default from 1.34` — where the gate came from, for messages."""
    stages = _GATES[gate]
    parts = []
    first = next((v for v, s in zip(LINT_VERSIONS, stages, strict=True) if s), None)
    on = next((v for v, s in zip(LINT_VERSIONS, stages, strict=True) if s in ("B+", "GA")), None)
    if first is not None and first != on:
        parts.append(f"{_STAGE_WORDS[stages[LINT_VERSIONS.index(first)]]} from {first}")
    parts.append(f"on by default from {on}" if on else "not on by default in any release up to "
                 f"{LINT_VERSIONS[-1]}")
    return ", ".join(parts)


def lint_features(version: str) -> ValidationFeatures:
    """The API server's default gates for `version` (the release profile's)."""
    return profile_for(version, releases=LINT_VERSIONS).validation_features()


def normalize_lint_version(version: str) -> str:
    """`v1.36.2`, `1.36.0-rc.1` or `1.36` -> `1.36`; DrasimError for releases lint does not know."""
    return normalize_version(version, LINT_VERSIONS)
