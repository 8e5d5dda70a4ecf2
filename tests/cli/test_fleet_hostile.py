"""`drasim fleet` at hostile sizes and values (issue 11): a bad group is named with its --nodes value, admission
checks one node per group (not 100,000 copies), and YAML is written a chunk at a time, byte for byte as before."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from drasim.cli import fleet as fleet_cli
from drasim.cli.main import cli
from drasim.errors import InputError
from drasim.fleet.generate import generate_fleet, parse_node_spec
from drasim.sources import files
from drasim.sources.files import load_paths


@pytest.mark.parametrize(("value", "message"), [
    ("w:7j", "unknown GPU model 'w'"),
    ("t4:mig-dynamic:1", "has no MIG"),
    ("l40s:0", "node count must be at least 1"),
])
def test_a_bad_group_names_its_value(value: str, message: str) -> None:
    result = CliRunner().invoke(cli, ["fleet", "--nodes", "h100:1", "--nodes", value])
    assert isinstance(result.exception, InputError) and result.exception.exit_code == 2
    assert str(result.exception).startswith(f"--nodes '{value}': ") and message in str(result.exception)


def test_admission_warnings_come_once_per_group_shape() -> None:
    def warnings(count: int) -> list[str]:
        result = CliRunner().invoke(cli, ["fleet", "--nodes", f"a100-40gb:mig-dynamic:{count}", "--nodes",
                                          f"h100:{count}", "--kubernetes-version", "1.34"])
        assert result.exit_code == 0
        return [line for line in result.stderr.splitlines() if "Forbidden" in line]

    one = warnings(1)
    assert one and warnings(3) == one and len(set(one)) == len(one)


def test_yaml_in_chunks_is_the_same_text(capsys: pytest.CaptureFixture[str]) -> None:
    specs = [parse_node_spec("h100:3", gpus_per_node=2, device_plugin=False)]
    objects = generate_fleet(specs).objects
    fleet_cli._echo_yaml(objects, ["header"], chunk=2)
    assert capsys.readouterr().out == fleet_cli._yaml(objects, ["header"])
    assert isinstance(fleet_cli.fleet, click.Command)


def test_admission_warnings_fold_list_indexes() -> None:
    # A MIG layout on 1.34 (no partitionable devices) drops consumesCounters of every device: one line says so,
    # counting the fields and objects, instead of one line per device.
    result = CliRunner().invoke(cli, ["fleet", "--nodes", "a100-40gb:mig-dynamic:1", "--kubernetes-version", "1.34"])
    lines = [line for line in result.stderr.splitlines() if "consumesCounters" in line]
    assert len(lines) == 1
    assert re.fullmatch(r"warning: ResourceSlice/\S+ and \d+ more: spec\.devices\[\*\]\.consumesCounters: Forbidden: "
                        r"the DRAPartitionableDevices feature gate is disabled; .* \(\d+ fields\)", lines[0])


def test_output_dir_splits_what_drasim_could_not_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A fleet larger than drasim's read limit per file is written in parts, read back whole and in order;
    # on stdout it warns instead.
    whole = tmp_path / "whole"
    assert CliRunner().invoke(cli, ["fleet", "--nodes", "h100:6", "--output-dir", str(whole)]).exit_code == 0
    size = (whole / "resourceslices.yaml").stat().st_size
    monkeypatch.setattr(files, "MAX_FILE_BYTES", size // 3)
    split = tmp_path / "split"
    result = CliRunner().invoke(cli, ["fleet", "--nodes", "h100:6", "--output-dir", str(split)])
    assert result.exit_code == 0
    parts = sorted(p.name for p in split.glob("resourceslices-*.yaml"))
    assert len(parts) >= 3 and not (split / "resourceslices.yaml").exists()
    assert all((split / p).stat().st_size <= size // 3 for p in parts)
    monkeypatch.undo()
    names = [o.metadata.name for o in load_paths([str(split)]).objects]
    assert names == [o.metadata.name for o in load_paths([str(whole)]).objects]
    monkeypatch.setattr(files, "MAX_FILE_BYTES", size // 3)
    assert "write it with --output-dir" in CliRunner().invoke(cli, ["fleet", "--nodes", "h100:6"]).stderr
