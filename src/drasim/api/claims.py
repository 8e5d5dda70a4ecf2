"""Helpers on ResourceClaims that every layer shares (upstream's `resourceclaim` helper package)."""

from __future__ import annotations

from drasim.api.resource import ResourceClaim


def claim_ref(claim: ResourceClaim) -> str:
    """How upstream names a claim in errors: `namespace/name`, or `name` when the namespace is empty."""
    ns = claim.metadata.namespace
    return f"{ns}/{claim.metadata.name}" if ns else claim.metadata.name
