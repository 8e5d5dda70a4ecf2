"""Suite-wide settings: Hypothesis profiles (fast for CI, `--thorough` for the invariant sweep), and the
parse cache off (tests and the drasim processes they start never write to the user's cache directory;
tests of the cache give it a temporary one)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

os.environ["DRASIM_CACHE_DIR"] = "off"

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", parent=settings.get_profile("ci"), max_examples=10_000)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--thorough", action="store_true",
                     help="run every property test with >= 10,000 examples (minutes; not for CI)")


def pytest_configure(config: pytest.Config) -> None:
    # Test modules read the profile through hypothesis_budget.examples() when they are imported,
    # which happens after this hook; the environment carries the choice to xdist workers too.
    if config.getoption("--thorough"):
        os.environ["DRASIM_HYPOTHESIS_PROFILE"] = "thorough"
    settings.load_profile(os.environ.get("DRASIM_HYPOTHESIS_PROFILE", "ci"))
