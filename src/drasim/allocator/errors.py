"""Errors the allocator returns: fatal ones (upstream's `error`) and node-local ones."""

from __future__ import annotations


class AllocationError(Exception):
    """`Allocate` failed; the text is upstream's, byte for byte (the scheduler aborts the attempt)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NodeLocalError(AllocationError):
    """Upstream's `ErrFailedAllocationOnNode` kind: unschedulable on this node, not a fatal error."""


class DeadlineExceeded(AllocationError):
    """The search ran past its deadline (upstream: the filter timeout cancelled the context)."""
