"""The HTML report's data and page: every device of the demo, colours per workload, pending pods, no network."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from drasim.allocator.versions import features_for_version
from drasim.cli.simulate import load_inputs, simulate_cmd
from drasim.demo import demo_paths
from drasim.report import collect, render
from drasim.sim.engine import SimulationOptions, SimulationResult, simulate


def _demo() -> SimulationResult:
    objects, timelines, _ = load_inputs(demo_paths())
    return simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36")))


def test_demo_data() -> None:
    data = collect(_demo())
    names = [w.name for w in data.workloads]
    assert names == sorted(names) and "Deployment/inference" in names
    assert len({w.colour for w in data.workloads}) == len(names)
    inference = next(w for w in data.workloads if w.name == "Deployment/inference")
    assert inference.mix == [("gpu/h100", 8), ("gpu/a100-pair", 3)] and inference.placed == 11
    # 4 GPUs on each of 4 plain nodes, 2 partitionable GPUs on the MIG node; one of them idle.
    assert data.summary["units"] == 18 and data.summary["busy"] == 17
    mig = next(n for n in data.nodes if n["n"] == "a100-mig-05")
    gpu0 = mig["u"][0]
    assert gpu0[2] == 8 and gpu0[6] == 3 and "memory slices 3/8" in gpu0[3]
    assert sorted((p[2], p[3]) for p in gpu0[4]) == [(0, 1), (2, 2)]  # 1g at slice 0, 2g at slices 2-3
    pending = {g.workload: g for g in data.pending}
    assert set(pending) == {"Pod/mig-on-mig-off-node", "Pod/urgent-training"}
    assert "cannot allocate all claims" in pending["Pod/mig-on-mig-off-node"].message
    assert "mig-disabled" in [code for code, _ in pending["Pod/mig-on-mig-off-node"].hints]


def test_the_legend_lists_only_what_the_device_map_draws() -> None:
    data = collect(_demo())
    legend = re.search(r'<div class="legend" id="legend">(.*?)</div>', render(data)).group(1)  # type: ignore[union-attr]
    keyed = set(re.findall(r'data-workload="([^"]+)"', legend))
    assert keyed == {w.name for w in data.workloads if w.units}
    # The demo's two pending pods hold nothing: in the pending list, not in the legend.
    assert "Pod/urgent-training" not in keyed and "Pod/mig-on-mig-off-node" not in keyed
    assert "Pod/legacy-gpu" in keyed and ">idle<" in legend  # one MIG GPU of the demo is idle
    data.summary["busy"] = data.summary["units"]
    assert ">idle<" not in re.search(r'id="legend">(.*?)</div>', render(data)).group(1)  # type: ignore[union-attr]


def test_page_is_self_contained_and_deterministic() -> None:
    result = _demo()
    page = render(collect(result))
    assert page == render(collect(result))
    assert not re.search(r"""(src|href|url)\s*[=(]\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page
    # Names are data: a `</script>` in one cannot end the embedded JSON early.
    data = collect(result)
    data.nodes[0]["n"] = "</script><b>x"
    assert render(data).count("</script>") == 2


def test_simulate_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    res = CliRunner().invoke(simulate_cmd, ["--report", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert f"wrote {out} (HTML report" in res.stderr and f"wrote {out}" not in res.stdout
    res = CliRunner().invoke(simulate_cmd, ["--report", str(tmp_path / "missing" / "r.html")])
    assert res.exit_code != 0 and "--report" in str(res.exception)
