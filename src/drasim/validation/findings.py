"""Findings: one field error as the API server reports it (`path: Invalid value: "x": detail`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec

from drasim.api.quantity import Quantity

FINDING_TYPES = (
    "Required",
    "Invalid",
    "TooMany",
    "Duplicate",
    "Forbidden",
    "NotSupported",
    "TooLong",
    "NotFound",
    "Internal",
    "Message",  # a message of its own (admission: unserved versions, replaced duplicates), printed as is
)

# How the API server spells each error type in `path: <label>: <value>: <detail>`.
_TYPE_LABELS = {
    "Required": "Required value",
    "Invalid": "Invalid value",
    "TooMany": "Too many",
    "Duplicate": "Duplicate value",
    "Forbidden": "Forbidden",
    "NotSupported": "Unsupported value",
    "TooLong": "Too long",
    "NotFound": "Not found",
    "Internal": "Internal error",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One field error. `value` is the offending value already rendered the way the API server prints it
    (`"Bad_Name"`, `129`, `null`, JSON for structures), or None when the error type omits it."""

    obj: str  # kind/namespace/name
    path: str  # spec.devices[3].attributes
    type: str  # one of FINDING_TYPES
    message: str
    severity: str = "error"  # "error" (the API server would reject the object) or "warning"
    value: str | None = None

    def body(self) -> str:
        """The error without its field path (`Invalid value: "x": detail`)."""
        if self.type == "Message":
            return self.message
        text = _TYPE_LABELS.get(self.type, self.type)
        if self.value is not None:
            text += f": {self.value}"
        if self.message:
            text += f": {self.message}"
        return text

    def __str__(self) -> str:
        return f"{self.path}: {self.body()}" if self.path else self.body()


class Omit:
    """Marker: the error type prints no value."""


OMIT = Omit()


def go_quote(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


class Raw(str):
    """A value already rendered the way the API server prints it (Go's %#v of a struct)."""


def render_value(value: object) -> str:
    """A bad value as the API server prints it: %q for strings, %v for numbers/bools, JSON otherwise."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, int | float):
        return str(value)
    if value is None:
        return "null"
    if isinstance(value, Quantity):
        return go_quote(str(value))
    try:
        return json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def plain(value: Any) -> Any:
    """JSON-able form of API structs (camelCase keys, defaults omitted) and containers."""
    if isinstance(value, Quantity):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, msgspec.Struct):
        return json.loads(msgspec.json.encode(value, enc_hook=str))
    return value
