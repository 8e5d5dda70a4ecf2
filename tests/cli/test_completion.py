"""Shell completion: click's for `drasim` and `kubectl-dra`, and kubectl's plugin protocol (kubectl_complete-dra)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from drasim.cli.completion import kubectl_complete


def complete(capsys: pytest.CaptureFixture[str], *words: str) -> list[str]:
    kubectl_complete(list(words))
    return capsys.readouterr().out.splitlines()


def test_kubectl_plugin_protocol(capsys: pytest.CaptureFixture[str]) -> None:
    lines = complete(capsys, "ex")
    assert lines[0].startswith("explain\t") and lines[-1] == ":4"
    assert complete(capsys, "explain", "-o", "") == ["table", "wide", "json", "yaml", "name", "jsonpath=", ":4"]
    assert complete(capsys, "lint", "-o", "s") == ["sarif", ":4"]
    assert complete(capsys, "explain", "po") == ["pod", "pods", ":4"]
    assert complete(capsys, "simulate", "-f", "") == [":0"]  # file names: the shell's own completion
    assert "--namespace" in {line.split("\t")[0] for line in complete(capsys, "__complete", "simulate", "--n")}


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **extra}


def test_click_completion_for_both_names(tmp_path: Path) -> None:
    env = _env(_DRASIM_COMPLETE="bash_complete", COMP_WORDS="drasim sim", COMP_CWORD="1")
    out = subprocess.run([sys.executable, "-m", "drasim"], capture_output=True, text=True, env=env, timeout=60).stdout
    assert out.split() == ["plain,simulate"]
    plugin = tmp_path / "kubectl-dra"
    plugin.write_text("from drasim.cli.main import main\nmain()\n")
    env = _env(_KUBECTL_DRA_COMPLETE="bash_source")
    out = subprocess.run([sys.executable, str(plugin)], capture_output=True, text=True, env=env, timeout=60).stdout
    assert "_kubectl_dra_completion()" in out and "_KUBECTL_DRA_COMPLETE=bash_complete" in out
