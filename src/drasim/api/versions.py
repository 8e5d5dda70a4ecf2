"""Validation features of each simulated Kubernetes release, derived from the release profile (api.profile)."""

from __future__ import annotations

from drasim.api.profile import SIMULATED, profile_for
from drasim.api.profile import normalize_version as _normalize
from drasim.api.validate import ValidationFeatures

__all__ = ["FEATURES_BY_VERSION", "SUPPORTED_VERSIONS", "normalize_version", "validation_features"]

SUPPORTED_VERSIONS: tuple[str, ...] = SIMULATED
FEATURES_BY_VERSION: dict[str, ValidationFeatures] = {v: profile_for(v).validation_features() for v in SIMULATED}


def normalize_version(version: str) -> str:
    """`v1.36.2`, `1.36.0-beta.0` or `1.36` -> `1.36`; raises DrasimError for anything unsupported."""
    return _normalize(version, SIMULATED)


def validation_features(version: str) -> ValidationFeatures:
    """The feature gates the API server of that release has on by default."""
    return profile_for(version).validation_features()
