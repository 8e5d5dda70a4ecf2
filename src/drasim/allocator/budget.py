"""The search's deterministic deadline (the scheduler's filter timeout as a step count) and its words."""

from __future__ import annotations

# The scheduler stops every Filter call after DynamicResourcesArgs.filterTimeout (10 s; spec §4.1,
# §5.3). drasim's deadline is a step count instead, so the same input always gives the same answer:
# about 10 CPU-s of drasim's search on this project's reference machine (bench/bench_budget.py).
FILTER_TIMEOUT_SECONDS = 10
FILTER_BUDGET_STEPS = 3_000_000
# A search still running after this many steps is checked once for a counting proof that it cannot
# succeed (`_Run._cannot_fit`). Smaller searches keep upstream's exact step counts.
PROOF_AFTER_STEPS = 1_000


def budget_text(max_steps: int) -> str:
    """What drasim's deterministic deadline is and stands for."""
    return (f"drasim stops the search after {max_steps} steps, its stand-in for the scheduler's "
            f"{FILTER_TIMEOUT_SECONDS}s filter timeout")


def deadline_message(max_steps: int) -> str:
    """Upstream's text for a cancelled search, plus what drasim's deterministic deadline stands for."""
    return f"filter operation aborted: context deadline exceeded ({budget_text(max_steps)})"
