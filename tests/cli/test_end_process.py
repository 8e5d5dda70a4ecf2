"""The `drasim` process ends without the interpreter's teardown, yet with its output, exit code and atexit
handlers as before; called from other code, `main` raises SystemExit as it always did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drasim.cli.main import main

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
