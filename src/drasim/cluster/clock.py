"""Saturating time arithmetic for the simulated clock: a time past year 9999 is simply never reached."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

__all__ = ["NEVER", "later", "seconds"]

# Kubernetes accepts times up to 9999-12-31 and durations up to int64 seconds; Python's datetime stops at
# year 9999, so sums beyond it saturate here instead of raising OverflowError.
NEVER = datetime.max.replace(tzinfo=UTC)
_DAWN = datetime.min.replace(tzinfo=UTC)


def later(t: datetime, delta: timedelta) -> datetime:
    """`t + delta`, or NEVER (the beginning of time for negative deltas) when the sum leaves datetime's range."""
    try:
        return t + delta
    except OverflowError:
        never = NEVER if t.tzinfo is not None else NEVER.replace(tzinfo=None)
        dawn = _DAWN if t.tzinfo is not None else _DAWN.replace(tzinfo=None)
        return never if delta > timedelta(0) else dawn


def seconds(n: float) -> timedelta:
    """`timedelta(seconds=n)`, saturated at timedelta's bounds (about 2.7 million years)."""
    try:
        return timedelta(seconds=n)
    except OverflowError:
        return timedelta.max if n > 0 else timedelta.min
