"""The dra-example-driver's podgroup-resourceclaimtemplate example through the CLI (`simulate`, `validate`):
the answer its README gives with the gates on, and a refusal naming the gates with them off."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "tests/realworld/dra-example-driver/demo/examples/podgroup-resourceclaimtemplate")
CLUSTER = str(ROOT / "examples/example-driver")
GATES = "GenericWorkload=true,GangScheduling=true,DRAWorkloadResourceClaims=true"


def _invoke(*args: str) -> tuple[int, str]:
    """(exit code as the `drasim` entry point gives it, output)."""
    result = CliRunner().invoke(cli, list(args))
    error = result.exception
    code = error.exit_code if isinstance(error, InputError) else result.exit_code
    return code, result.output


def test_simulate_with_the_gates_shows_one_gpu_per_group() -> None:
    code, out = _invoke("simulate", "-f", CLUSTER, "-f", EXAMPLE, "--kubernetes-version", "1.37",
                        "--feature-gates", GATES)
    assert code == 0, out
    assert "4 placed, 0 pending" in out
    assert "group-1 (gang, minCount 2): 2/2 pods placed" in out and "-> gpu.example.com/kind-worker/gpu-0" in out
    assert "group-2 (gang, minCount 2): 2/2 pods placed" in out and "-> gpu.example.com/kind-worker/gpu-1" in out
    assert "2/2 devices in use" in out


def test_gates_off_refuse_the_podgroups_with_exit_2() -> None:
    code, out = _invoke("simulate", "-f", CLUSTER, "-f", EXAMPLE, "--kubernetes-version", "1.37")
    assert code == 2
    assert "2 placed, 2 pending" in out
    assert "GenericWorkload=true, GangScheduling=true, DRAWorkloadResourceClaims=true in --feature-gates" in out


def test_validate_accepts_the_example_with_the_gates() -> None:
    code, out = _invoke("validate", "-f", EXAMPLE, "--kubernetes-version", "1.37", "--feature-gates", GATES)
    assert code == 0, out
    code, out = _invoke("validate", "-f", EXAMPLE, "--kubernetes-version", "1.36")
    assert code == 1 and 'no matches for kind "PodGroup"' in out


def test_explain_names_the_pod_group_and_the_shared_claim() -> None:
    code, out = _invoke("explain", "pod/group-1-xrbnwms25h-7fjp6", "-n", "podgroup-resourceclaimtemplate",
                        "-f", CLUSTER, "-f", EXAMPLE, "--kubernetes-version", "1.37", "--feature-gates", GATES)
    assert code == 0, out
    assert "PodGroup podgroup-resourceclaimtemplate/group-1 (gang, minCount 2): 2 of its 2 pods bound; claims " \
           "shared with the group: gpu" in out

