"""A Timeline's `file:` outside its folder: refused by default, allowed with --load-restrictor LoadRestrictionsNone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import drasim
from drasim.cli.main import cli

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "binding-conditions.yaml"
TIMELINE = """\
apiVersion: drasim.dev/v1alpha1
kind: Timeline
metadata: {name: outside}
spec:
  events:
  - {at: 1m, action: apply, file: ../cluster.yaml}
"""


@pytest.fixture
def timeline(tmp_path: Path) -> str:
    (tmp_path / "cluster.yaml").write_text(EXAMPLE.read_text())
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "timeline.yaml"
    path.write_text(TIMELINE)
    return str(path)


def test_refused_by_default_and_the_message_names_both_values(timeline: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "drasim", "simulate", "-f", timeline], capture_output=True,
                          text=True, check=False, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "file '../cluster.yaml' is outside" in proc.stderr
    assert "LoadRestrictionsRootOnly, the default; LoadRestrictionsNone allows any file" in proc.stderr


def test_every_command_reading_timelines_takes_the_flag(timeline: str) -> None:
    args = {"simulate": [], "lint": [], "explain": ["pod/attached-job"], "capacity": ["--workload", str(EXAMPLE)]}
    for command, extra in args.items():
        result = CliRunner().invoke(cli, [command, "-f", timeline, "--load-restrictor", "LoadRestrictionsNone",
                                          *extra])
        assert "outside" not in result.output, (command, result.output)
        assert result.exit_code in (0, 1), (command, result.output)
    result = CliRunner().invoke(cli, ["simulate", "-f", timeline, "--load-restrictor", "Anything"])
    assert result.exit_code == 2 and "LoadRestrictionsNone" in result.output


def test_allowed_the_timeline_applies_the_file(timeline: str) -> None:
    result = CliRunner().invoke(cli, ["simulate", "-f", timeline, "--load-restrictor", "LoadRestrictionsNone"])
    assert result.exit_code == 0, result.output
    assert "default/attached-job" in result.output
    inputs = drasim.load([timeline], load_restrictor="LoadRestrictionsNone")
    assert [p.key[1] for p in drasim.simulate(inputs).pods] == ["attached-job"]
    with pytest.raises(drasim.InputError, match="outside"):
        drasim.load([timeline])
