"""Every workload shape simulates to the same bytes in every output format as before the scheduler's per-pod
work was shared across workloads (issue #27): one big Deployment, many small ones, bare pods, the seed's
h100-else-a100 template, topology spread with affinity and taints, the demo, real manifests.

The digests in tests/data/golden-shapes.json were taken with the code before that change; regenerate them
only for an intended output change: `python tests/sim/test_shapes_golden.py --write`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import shapes

from drasim.scheduler import framework

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden-shapes.json"


def _digests(tmp: Path) -> dict[str, str]:
    return {k: hashlib.sha256(v.encode()).hexdigest() for k, v in shapes.outputs(tmp).items()}


@pytest.fixture(scope="module")
def digests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _digests(tmp_path_factory.mktemp("shapes"))


@pytest.mark.parametrize("case", sorted(json.loads(GOLDEN.read_text())))
def test_shape_output_unchanged(case: str, digests: dict[str, str]) -> None:
    assert digests[case] == json.loads(GOLDEN.read_text())[case], f"drasim simulate of {case} changed"


@pytest.mark.parametrize("limit", [0, 3, 10**9])
def test_plans_shared_or_not_give_the_same_bytes(limit: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sharing a plan between workloads (their hostname spread counts put in per cycle) or giving each
    selector its own plan is a question of speed only: every plan own (0), shared until a selector's pods
    sit on 4 nodes (3), every one shared."""
    monkeypatch.setattr(framework, "SHARED_SPREAD_NODES", limit)
    golden = json.loads(GOLDEN.read_text())
    for name, args in shapes.build(tmp_path).items():
        if name in ("one-deployment", "many-deployments", "spread-affinity", "h100-else-a100"):
            text = shapes.run(tmp_path, args, "json")
            assert hashlib.sha256(text.encode()).hexdigest() == golden[f"{name} -o json"], name


def test_every_shape_and_format_is_covered(digests: dict[str, str]) -> None:
    assert set(digests) == set(json.loads(GOLDEN.read_text()))


if __name__ == "__main__" and "--write" in sys.argv:
    with tempfile.TemporaryDirectory() as folder:
        GOLDEN.write_text(json.dumps(_digests(Path(folder)), indent=1, sort_keys=True) + "\n")
