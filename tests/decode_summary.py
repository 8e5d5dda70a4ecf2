"""What a decode gave, as comparable data: the property tests of the fast decode paths compare these."""

from __future__ import annotations

from typing import Any

from drasim.api.decode import DecodeResult
from drasim.api.encode import encode_object


def summary(result: DecodeResult) -> dict[str, Any]:
    """Objects (type and encoding), versions as written, warnings, unserved documents, errors and own documents."""
    return {
        "objects": [(type(o).__name__, encode_object(o)) for o in result.objects],
        "api_versions": result.api_versions,
        "warnings": result.warnings,
        "unserved": result.unserved,
        "errors": [(e.message, e.source, e.obj, e.path) for e in result.errors],
        "own": result.own,
    }
