"""The one family of user-facing errors: each carries the object reference and field path it is about."""

from __future__ import annotations


class DrasimError(Exception):
    """An error a user can act on. The CLI prints `str(err)` and exits non-zero; never a traceback.

    `source` is where the input came from (a file name, `-` for stdin), `obj` the object reference
    as `kind/namespace/name` (or `kind/name` for cluster-scoped objects), `path` the field path
    inside the object (`spec.devices[0].attributes`).
    """

    exit_code = 1

    def __init__(self, message: str, *, source: str | None = None, obj: str | None = None,
                 path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.obj = obj
        self.path = path

    def __str__(self) -> str:
        where = []
        if self.source:
            where.append(self.source)
        if self.obj:
            where.append(self.obj)
        prefix = ": ".join(where)
        field = f"{self.path}: " if self.path else ""
        return f"{prefix}: {field}{self.message}" if prefix else f"{field}{self.message}"


class InputError(DrasimError):
    """Input that cannot be read or decoded (malformed YAML/JSON, wrong types, unknown fields)."""

    exit_code = 2


class RejectedError(InputError):
    """Objects the API server would reject at admission were left out; the command answered for the rest."""


class ValidationError(DrasimError):
    """An object that the API server would reject."""

    exit_code = 2


class QuantityError(ValueError):
    """A string that is not a valid Kubernetes quantity; the message is apimachinery's."""


class SemverError(ValueError):
    """A string that is not a valid semantic version."""
