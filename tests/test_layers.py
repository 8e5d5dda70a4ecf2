"""The house's layers (../shared/DESIGN.md), as pyproject.toml's import-linter contracts state them: kept, with
no exception listed, covering every package, and no import hidden from the checker."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "drasim"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
# Modules whose docstring must say why they pass this many lines (issue 14: rooms small enough to learn).
MAX_LINES = 700


def _layer_modules() -> set[str]:
    (layers,) = [c for c in CONFIG["contracts"] if c["type"] == "layers" and not c.get("containers")]
    return {m.strip() for row in layers["layers"] for m in row.split("|")}


def test_the_scheduler_reads_top_down() -> None:
    # Issue #27: the scheduler's modules had imported each other in a circle; its own layers contract
    # (exhaustive: a new module must take a row) keeps each importing only the rows below it.
    (scheduler,) = [c for c in CONFIG["contracts"] if c.get("containers") == ["drasim.scheduler"]]
    assert scheduler["type"] == "layers" and scheduler["exhaustive"]
    rows = {m.strip() for row in scheduler["layers"] for m in row.split("|")}
    assert rows == {p.stem for p in (SRC / "scheduler").glob("*.py") if p.stem != "__init__"}
    assert scheduler["layers"][0] == "framework"


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


_HIDDEN = re.compile(r"""(?:import_module|__import__|resources\.files)\(\s*["']drasim\.(\w+)""")


def test_no_import_is_hidden_from_the_checker() -> None:
    # importlib.import_module("drasim.x") and importlib.resources.files("drasim.x") are invisible to
    # import-linter; only the CLI (the top layer, which may import anything) loads its commands that way.
    found = []
    for path in SRC.rglob("*.py"):
        package = path.relative_to(SRC).parts[0]
        if package == "cli":
            continue
        for target in _HIDDEN.findall(path.read_text()):
            # The root package re-exports the Python API (top layer) on first use: nothing can sit above it.
            if target != package.removesuffix(".py") and (package, target) != ("__init__.py", "lib"):
                found.append(f"{path.relative_to(ROOT)} -> drasim.{target}")
    assert found == []


def test_long_modules_say_why() -> None:
    long = []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text()
        if text.count("\n") > MAX_LINES and f"past {MAX_LINES} lines" not in _flat(ast.get_docstring(ast.parse(text))):
            long.append(f"{path.relative_to(ROOT)}: {text.count(chr(10))} lines")
    assert long == [], f"split these along their seams, or say in the docstring why they stay past {MAX_LINES} lines"


def _flat(text: str | None) -> str:
    return " ".join((text or "").split())


def test_every_module_says_what_it_owns() -> None:
    missing = [str(p.relative_to(ROOT)) for p in sorted(SRC.rglob("*.py"))
               if not ast.get_docstring(ast.parse(p.read_text()))]
    assert missing == []
