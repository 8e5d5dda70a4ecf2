"""pyproject.toml's bounds say what is tested: constraints/lowest.txt pins each runtime dependency's lower bound."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent


def runtime_requirements() -> list[Requirement]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return [Requirement(r) for r in tomllib.load(f)["project"]["dependencies"]]


def lowest_pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints" / "lowest.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = Version(version)
    return pins


def test_every_runtime_dependency_is_bounded_on_both_sides() -> None:
    for req in runtime_requirements():
        operators = {spec.operator for spec in req.specifier}
        assert operators == {">=", "<"}, f"{req}: a lower bound (>=) and an upper bound (<) of its next major"


def test_the_lowest_constraints_pin_exactly_the_lower_bounds() -> None:
    pins = lowest_pins()
    requirements = runtime_requirements()
    assert set(pins) == {canonicalize_name(r.name) for r in requirements}
    for req in requirements:
        [lower] = [Version(s.version) for s in req.specifier if s.operator == ">="]
        assert pins[canonicalize_name(req.name)] == lower, req
        assert req.specifier.contains(pins[canonicalize_name(req.name)]), req
