"""Plain tables on a pipe: aligned columns, nothing folded, no trailing blanks; simulate's formats agree."""

from __future__ import annotations

import io
import json

import yaml
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

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


_CELL = st.text(alphabet="ab {}:%0-", max_size=5)  # format fields and specs in cells must stay literal


@given(st.integers(1, 4).flatmap(lambda n: st.tuples(
    st.lists(_CELL, min_size=n, max_size=n), st.lists(st.lists(_CELL, min_size=n, max_size=n), max_size=5),
    st.lists(st.booleans(), min_size=n, max_size=n))))
def test_plain_table_pads_as_ljust_and_rjust(case: tuple[list[str], list[list[str]], list[bool]]) -> None:
    # The one-format-per-row table against the plain definition: each column as wide as its widest cell,
    # two spaces apart, right-aligned columns with rjust, the last column unpadded unless some are right.
    columns, rows, flags = case
    right = [c for c, r in zip(columns, flags, strict=True) if r]
    buf = io.StringIO()
    out = TextOut(buf, tty=False)
    out.table(columns, rows, right=right)
    out.close()
    widths = [max(len(row[i]) for row in [columns, *rows]) for i in range(len(columns))]
    want = []
    for row in [columns, *rows]:
        if right:
            cells = [c.rjust(w) if col in right else c.ljust(w) for c, w, col in zip(row, widths, columns, strict=True)]
            want.append("  ".join(cells).rstrip())
        else:
            padded = [c.ljust(w + 2) for c, w in zip(row[:-1], widths[:-1], strict=True)]
            want.append("".join([*padded, row[-1]]).rstrip())
    assert buf.getvalue() == "\n".join(want) + "\n"


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
