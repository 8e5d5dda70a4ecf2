"""Explain allocations: why a claim or pod got what it got, or why nothing, per node and request."""

from drasim.explain.diagnose import device_outcomes, explain_claim, explain_claims, explain_pod
from drasim.explain.model import ClaimExplanation, DeviceOutcome, Explanation, Hint, NodeGroup, PodExplanation

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
