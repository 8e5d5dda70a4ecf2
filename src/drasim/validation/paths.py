"""Field paths as the API server prints them (`spec.devices[3].attributes[example.com/x]`)."""

from __future__ import annotations

# --- field paths -----------------------------------------------------------------------------------


def child(path: str, *names: str) -> str:
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def map_key(path: str, key: str, max_len: int | None = None) -> str:
    if max_len is not None:
        key = truncate(key, max_len)
    return f"{path}[{key}]"


def truncate(s: str, max_len: int) -> str:
    """Long map keys are shortened in the middle in paths (upstream truncateIfTooLong)."""
    max_len = max(max_len, 16)
    if len(s) <= max_len:
        return s
    remaining = max_len - 3
    return s[: (remaining + 1) // 2] + "..." + s[len(s) - remaining // 2 :]
