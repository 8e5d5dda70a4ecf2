"""The two error results of the CEL layer: a compile error (raised) and a runtime error (returned)."""

from __future__ import annotations

from dataclasses import dataclass


class CelCompileError(Exception):
    """An expression that does not compile in the environment. `message` is upstream's text without
    any `claim ...: selector #i:` prefix, e.g. `compilation failed: ERROR: <input>:1:1: ...`."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class CelRuntimeError:
    """The result of an evaluation that failed (a value, not raised), e.g. `no such key: model`."""

    message: str

    def __str__(self) -> str:
        return self.message
