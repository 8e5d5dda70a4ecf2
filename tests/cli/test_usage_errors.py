"""Every usage error names the option (or argument) and the value; sizes beyond a documented bound are
refused before any work (issue 11 "Messages", issue 15 "Bounds on generators")."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from drasim.cli.fleet import MAX_FLEET_NODES
from drasim.cli.main import cli


@pytest.mark.parametrize(("args", "message"), [
    (["fleet", "--nodes", "h100:1", "--gpus-per-node", "x"],
     "Invalid value for '--gpus-per-node': 'x' is not a valid integer range."),
    (["fleet", "--nodes", "h100:1", "--gpus-per-node", "0"],
     "Invalid value for '--gpus-per-node': 0 is not in the range 1<=x<=16."),
    (["fleet", "--nodes", "h100:1", "--gpus-per-node", "99999999999"],
     "Invalid value for '--gpus-per-node': 99999999999 is not in the range 1<=x<=16."),
    (["fleet", "--nodes", "l40s:999999999999999999999999999999"],
     "Invalid value for '--nodes': 'l40s:999999999999999999999999999999': a fleet has at most 100,000 nodes"),
    (["fleet", "--nodes", "h100:60000", "--nodes", "a100-40gb:60000"],
     "Invalid value for '--nodes': 'h100:60000 a100-40gb:60000': a fleet has at most 100,000 nodes in all"),
    (["fleet", "--nodes", "l40s:" + "9" * 10_000], "Invalid value for '--nodes': 'l40s:99999"),
    (["fleet", "--seed", "-x", "--nodes", "h100:1"], "Invalid value for '--seed': '-x' is not a valid integer."),
    (["simulate", "--kubernetes-version", "9"], "Invalid value for '--kubernetes-version': '9' is not one of"),
    (["simulate", "-o", "foo"], "Invalid value for '-o' / '--output': 'foo' is not one of"),
    (["simulate", "--horizon", "soon"], "Invalid value for '--horizon': 'soon' is not a duration"),
    (["simulate", "--seed", "1.5"], "Invalid value for '--seed': '1.5' is not a valid integer."),
    (["explain", "foo", "x"], "Invalid value for 'TYPE': unknown resource type 'foo': expected pod(s) or "
                                 "resourceclaim(s)"),
    (["doctor", "--timeout", "x"], "Invalid value for '--timeout': 'x' is not a valid float range."),
    (["validate", "--bogus"], "No such option '--bogus'."),
    (["validate", "extra"], "Got unexpected extra argument (extra)"),
    (["fleet", "--nodes", "h100:1", "--gpus-per-node"], "Option '--gpus-per-node' requires an argument."),
])
def test_usage_errors_name_the_option_and_the_value(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert message in result.output, result.output
    assert "Traceback" not in result.output


def test_the_fleet_bound_is_documented() -> None:
    result = CliRunner().invoke(cli, ["fleet", "--help"])
    assert MAX_FLEET_NODES == 100_000
    assert "At most 100,000 nodes in all" in " ".join(result.output.split())
