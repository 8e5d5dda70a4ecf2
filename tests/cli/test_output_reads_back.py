"""drasim's own output reads back quietly: the kinds it writes (Events, Lists) are accepted without a warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from drasim.api.decode import decode_documents


def _drasim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "drasim", *args], capture_output=True, text=True, check=False,
                          timeout=300)


def test_simulate_output_fed_to_explain_prints_no_skipped_kinds(tmp_path: Path) -> None:
    for fmt in ("yaml", "json"):
        out = tmp_path / f"out.{fmt}"
        proc = _drasim("simulate", "-o", fmt)
        assert proc.returncode == 0, proc.stderr
        out.write_text(proc.stdout)
        assert "kind: Event" in proc.stdout or '"kind": "Event"' in proc.stdout
        # The demo's DeviceTaintRule is written in the version 1.36 has (v1beta2), not in v1 it does not serve.
        assert "resource.k8s.io/v1beta2" in proc.stdout
        # Read back under the demo's own API server (its gate and beta version on): with the gate off the rule
        # is rejected at admission (exit 2), which is the answer, not noise.
        back = _drasim("explain", "pod/urgent-training", "-n", "default", "-f", str(out),
                       "--feature-gates", "DRADeviceTaintRules=true",
                       "--runtime-config", "resource.k8s.io/v1beta2=true")
        assert back.returncode == 0, back.stderr
        assert "skipped" not in back.stderr and "Event" not in back.stderr


def test_events_of_either_group_decode_to_nothing_without_a_warning() -> None:
    docs = [{"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}},
            {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "f"}},
            {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Event",
                                                            "metadata": {"name": "g"}}]},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}]
    result = decode_documents(yaml.safe_load(yaml.safe_dump(docs)), source="out.yaml")
    assert result.objects == []
    assert [w for w in result.warnings if "ConfigMap" not in w] == []  # other kinds still say they are skipped
    assert any("ConfigMap/c" in w and "skipped" in w for w in result.warnings)
