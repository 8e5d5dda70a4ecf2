"""`drasim --help` and `--version` import no subcommand module (they must stay fast)."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from drasim.cli.main import SUBCOMMANDS, SUMMARIES, cli

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
# The heavy libraries the commands use (parsing, models, CEL, terminal tables, clusters) wait for a command.
loaded += sorted(m for m in sys.modules if m.split(".")[0] in (
    "msgspec", "yaml", "rich", "cel_expr_python", "re2", "httpx", "httpx2", "dask"))
print("LOADED", loaded)
"""


def test_help_and_version_import_no_subcommand() -> None:
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True).stdout
    assert "LOADED []" in out
    for name in SUBCOMMANDS:
        assert name in out and SUMMARIES[name] in out.replace("\n" + " " * 12, " ")


def test_every_command_has_its_help() -> None:
    for name in SUBCOMMANDS:
        result = CliRunner().invoke(cli, [name, "--help"], prog_name="drasim")
        assert result.exit_code == 0, (name, result.output)
        assert result.output.startswith(f"Usage: drasim {name} "), result.output
