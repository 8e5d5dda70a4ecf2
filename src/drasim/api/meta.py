"""Object metadata and the struct base classes every Kubernetes object in drasim is built from."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec


class Strict(msgspec.Struct, rename="camel", forbid_unknown_fields=True, omit_defaults=True, kw_only=True):
    """Base of DRA spec/status structs: unknown fields are decode errors (typos must not pass silently)."""


class Lenient(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Base of structs that real clusters fill with fields drasim does not model (ignored on decode)."""


class OwnerReference(Lenient):
    api_version: str = ""
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ObjectMeta(Lenient):
    """`metadata`: noise from live clusters (managedFields, resourceVersion...) is accepted and dropped."""

    name: str = ""
    generate_name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    generation: int | None = None
    creation_timestamp: datetime | None = None
    deletion_timestamp: datetime | None = None
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    owner_references: list[OwnerReference] = []
    finalizers: list[str] = []


class Condition(Strict):
    type: str
    status: str
    observed_generation: int | None = None
    last_transition_time: datetime | None = None
    reason: str | None = None
    message: str | None = None


class NodeSelectorRequirement(Strict):
    key: str
    operator: str
    values: list[str] = []


class NodeSelectorTerm(Strict):
    match_expressions: list[NodeSelectorRequirement] = []
    match_fields: list[NodeSelectorRequirement] = []


class NodeSelector(Strict):
    node_selector_terms: list[NodeSelectorTerm] = []


def object_ref(kind: str, meta: ObjectMeta) -> str:
    """`kind/namespace/name` (or `kind/name` when cluster-scoped), the way errors name objects."""
    if meta.namespace:
        return f"{kind}/{meta.namespace}/{meta.name}"
    return f"{kind}/{meta.name}"


RawJSON = Any  # opaque parameters and device status data: any JSON value, kept as decoded
