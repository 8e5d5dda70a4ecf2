"""The `drasim` process ends without the interpreter's teardown, yet with its output, exit code and atexit
handlers as before; called from other code, `main` raises SystemExit as it always did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from drasim.cli import exits
from drasim.cli.main import cli, main
from drasim.sources.inputs import Inputs

SCRIPT = """
import atexit, sys
from drasim.cli.main import main
marker = sys.argv[1]
atexit.register(lambda: open(marker, "w").write("ran"))
sys.argv = ["drasim", *sys.argv[2:]]
main()
"""


@pytest.mark.parametrize(("args", "code"), [(["--version"], 0), (["validate", "-f", "missing.yaml"], 2)])
def test_entry_point_keeps_output_code_and_atexit(tmp_path: Path, args: list[str], code: int) -> None:
    marker = tmp_path / "atexit"
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(marker), *args], capture_output=True, text=True,
                          cwd=tmp_path, check=False)
    assert proc.returncode == code
    assert marker.read_text() == "ran"
    if code == 0:
        assert proc.stdout.startswith("drasim ")
    else:
        assert "missing.yaml: no such file or directory" in proc.stderr


def test_called_from_code_raises_system_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["drasim", "--version"])
    with pytest.raises(SystemExit) as exc:
        main()
    assert exc.value.code == 0


@pytest.mark.parametrize("args", [
    ["validate", "-f", "examples/cluster/"],
    ["lint", "-f", "examples/cluster/"],
    ["capacity", "-f", "examples/cluster/", "--workload", "examples/inference.yaml"],
])
def test_every_command_leaves_its_inputs_to_the_exit(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    # `finish` keeps the inputs for the process's end, so no command frees them object by object on the way out.
    left: list[object] = []
    monkeypatch.setattr(exits, "_fast_exit", True)
    monkeypatch.setattr(exits, "_left", left)
    monkeypatch.chdir(Path(__file__).parents[2])
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert any(isinstance(obj, Inputs) for obj in left)
