"""Explain allocations: why a claim or pod got what it got, or why nothing, per node and request."""

from drasim.explain.diagnose import (
    ClaimExplanation,
    DeviceOutcome,
    Explanation,
    NodeGroup,
    PodExplanation,
    device_outcomes,
    explain_claim,
    explain_claims,
    explain_pod,
)
from drasim.explain.hints import Hint

__all__ = [
    "ClaimExplanation",
    "DeviceOutcome",
    "Explanation",
    "Hint",
    "NodeGroup",
    "PodExplanation",
    "device_outcomes",
    "explain_claim",
    "explain_claims",
    "explain_pod",
]
