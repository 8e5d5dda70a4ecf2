"""Plain tables on a pipe: aligned columns, nothing folded, no trailing blanks; simulate's formats agree."""

from __future__ import annotations

import io
import json

import yaml
from click.testing import CliRunner

from drasim.cli.simulate import simulate
from drasim.cli.textout import TextOut


def test_plain_table_aligns_and_never_folds() -> None:
    buf = io.StringIO()
    out = TextOut(buf, tty=False)
    out.line("title")
    long = "x" * 300
    out.table(["A", "BB", "C"], [["aaaa", "b", "c"], ["", long, ""], ["a", "b", "last cell"]])
    out.close()
    assert buf.getvalue().splitlines() == [
        "title",
        "A     BB" + " " * 300 + "C",
        "aaaa  b" + " " * 301 + "c",
        "      " + long,
        "a     b" + " " * 301 + "last cell",
    ]


def test_simulate_yaml_and_json_carry_the_same_objects() -> None:
    runner = CliRunner()
    as_json = runner.invoke(simulate, ["-o", "json"])
    as_yaml = runner.invoke(simulate, ["-o", "yaml"])
    assert as_json.exit_code == 0 and as_yaml.exit_code == 0, (as_json.output, as_yaml.output)
    assert json.loads(as_json.stdout)["items"] == list(yaml.safe_load_all(as_yaml.stdout))


def test_simulate_table_on_a_pipe_is_plain() -> None:
    result = CliRunner().invoke(simulate, ["-o", "wide"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].split() == ["POD", "STATUS", "NODE", "CLAIM", "ALTERNATIVE", "DEVICES", "NODE", "SELECTOR",
                                "TOP", "SCORES"]
    assert all(line == line.rstrip() for line in lines)
    # One row per claim, never folded onto a second line: every row's POD column is a pod or blank.
    pod_col = lines[1].index("STATUS")
    rows = lines[2:lines.index("")]
    assert rows and all(r[:pod_col].strip().startswith("default/") or not r[:pod_col].strip() for r in rows)
