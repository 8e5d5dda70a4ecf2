"""`drasim --help` and `--version` import no subcommand module (they must stay fast)."""

from __future__ import annotations

import subprocess
import sys

from drasim.cli.main import SUBCOMMANDS, SUMMARIES

_PROBE = """
import sys
from click.testing import CliRunner
from drasim.cli.main import cli
for args in (["--help"], ["--version"]):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    print(result.output)
loaded = sorted(m for m in sys.modules if m.startswith("drasim.") and m.split(".")[1] not in ("cli", "errors"))
loaded += sorted(m for m in sys.modules if m.startswith("drasim.cli.") and m != "drasim.cli.main")
print("LOADED", loaded)
"""


def test_help_and_version_import_no_subcommand() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True).stdout
    assert "LOADED []" in out
    for name in SUBCOMMANDS:
        assert name in out and SUMMARIES[name] in out.replace("\n" + " " * 12, " ")
