"""Object metadata and the struct base classes every Kubernetes object in drasim is built from."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec

# Go's integer types, as the API server's JSON decoder (sigs.k8s.io/json) enforces their ranges: a number out of
# range does not decode (api.decode words the error as upstream does).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
Int64 = Annotated[int, msgspec.Meta(ge=INT64_MIN, le=INT64_MAX)]
Int32 = Annotated[int, msgspec.Meta(ge=INT32_MIN, le=INT32_MAX)]


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
    generation: Int64 | None = None
    creation_timestamp: datetime | None = None
    deletion_timestamp: datetime | None = None
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    owner_references: list[OwnerReference] = []
    finalizers: list[str] = []


class Condition(Strict):
    type: str
    status: str
    observed_generation: Int64 | None = None
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
