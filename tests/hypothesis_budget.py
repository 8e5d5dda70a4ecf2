"""Example counts for property tests: the CI figure, or the thorough profile's when that is loaded."""

from __future__ import annotations

import os

THOROUGH_EXAMPLES = 10_000


def examples(ci: int) -> int:
    """`ci` examples in the default run; at least THOROUGH_EXAMPLES under `pytest --thorough`."""
    if os.environ.get("DRASIM_HYPOTHESIS_PROFILE") == "thorough":
        return max(ci, THOROUGH_EXAMPLES)
    return ci
