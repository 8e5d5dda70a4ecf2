"""The house's layers (../shared/DESIGN.md), as pyproject.toml's import-linter contracts state them: kept, with
no exception listed, covering every package, and no import hidden from the checker."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "drasim"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def _layer_modules() -> set[str]:
    (layers,) = [c for c in CONFIG["contracts"] if c["type"] == "layers"]
    return {m.strip() for row in layers["layers"] for m in row.split("|")}


def test_the_contracts_are_kept() -> None:
    # A subprocess: import-linter builds its graph from the installed sources, away from pytest's imports.
    # --no-cache: a stale cache must not hide a new import.
    done = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                           "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_exception_is_listed() -> None:
    for contract in CONFIG["contracts"]:
        assert not contract.get("ignore_imports"), contract["name"]
        assert not contract.get("unmatched_ignore_imports_alerting"), contract["name"]


def test_every_package_and_top_level_module_has_a_layer() -> None:
    # A new package left out of the contract would escape it unnoticed.
    names = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    names |= {p.stem for p in SRC.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert {f"drasim.{n}" for n in names} == _layer_modules()
