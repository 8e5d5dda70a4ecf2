"""The one diagnostic type every report carries (lint, validate, doctor, explain): severity, code, message,
file, object reference, field path and hint, with the report envelope's apiVersion."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["API_VERSION", "Diagnostic", "ObjectReference", "Severity", "parse_object_ref", "split_position"]

API_VERSION = "drasim.dev/v1alpha1"

Severity = Literal["error", "warning", "info"]


class ObjectReference(msgspec.Struct, omit_defaults=True, frozen=True):
    """The object a diagnostic is about; `namespace` only for namespaced objects."""

    kind: str
    name: str
    namespace: str | None = None

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"


class Diagnostic(msgspec.Struct, omit_defaults=True, frozen=True):
    """One finding. `code` is stable (a lint rule, an API error type such as `FieldValueInvalid`, a doctor
    check, an explain hint); `field` is the path inside the object (`spec.devices[0].attributes`); `file` is
    where the object came from (a path, `-`, or the live cluster's context); `hint` says what to do."""

    severity: Severity
    code: str
    message: str
    file: str | None = None
    object: ObjectReference | None = None
    field: str | None = None
    hint: str | None = None
    details: list[str] = []


def split_position(text: str | None) -> tuple[str, str | None]:
    """(`document 3`, `Pod/ml/p`) from `document 3 Pod/ml/p`: the position an input error names before the
    object (`document N`, `items[N]`; kinds and names have no spaces); ("", text) without one."""
    if not text or " " not in text:
        return "", text
    where, _, ref = text.rpartition(" ")
    return (where, ref) if "/" in ref else (text, None)


def parse_object_ref(text: str | None) -> ObjectReference | None:
    """drasim's `Kind/namespace/name` or `Kind/name` as an ObjectReference (None for anything else)."""
    if not text:
        return None
    parts = text.split("/")
    if len(parts) == 3 and all(parts):
        return ObjectReference(kind=parts[0], namespace=parts[1], name=parts[2])
    if len(parts) == 2 and all(parts):
        return ObjectReference(kind=parts[0], name=parts[1])
    return None
