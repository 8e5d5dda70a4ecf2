"""drasim sweep: the grid, the figures per point, CSV and chart, and the same bytes on dask.distributed."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from drasim.cli.sweep import sweep as sweep_cmd
from drasim.errors import InputError
from drasim.sweep import chart_svg, load_sweep, payload, run_local, run_point

HERE = Path(__file__).parent
SPEC = str(HERE / "sweep.yaml")


def test_grid_and_figures() -> None:
    spec = load_sweep(SPEC)
    points = spec.points()
    assert [(p["h100"], p["order"]) for p in points] == [(0, "as-written"), (0, "shuffled"), (2, "as-written"),
                                                         (2, "shuffled")]
    figures = run_point(payload(spec, points[2]))
    # 2 H100 nodes x 2 GPUs and one A100 node x 2 GPUs: 6 GPUs, the 3 replicas placed.
    assert figures["devices"] == 6 and figures["placed:inference"] == 3
    assert figures["placed"] + figures["pending"] <= figures["pods"]
    assert 0 < figures["first_choice:inference"] <= 1
    none = run_point(payload(spec, points[0]))
    assert none["first_choice:inference"] == 0.0 and none["devices"] == 2


def test_cli_table_csv_and_chart(tmp_path: Path) -> None:
    csv_path, chart = tmp_path / "out.csv", tmp_path / "chart.svg"
    res = CliRunner().invoke(sweep_cmd, [SPEC, "--workers", "1", "--csv", str(csv_path), "--chart", str(chart)])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0].split()[:4] == ["H100", "A100-80GB", "replicas:inference", "ORDER"]
    assert "━" not in res.output  # no progress bar when not on a terminal
    rows = csv_path.read_text().splitlines()
    assert len(rows) == 5 and rows[0].startswith("h100,a100-80gb,replicas:inference,order,seed,pods,placed")
    root = ET.fromstring(chart.read_text())
    assert root.tag.endswith("svg") and len(root.findall(".//{http://www.w3.org/2000/svg}path")) == 2
    res = CliRunner().invoke(sweep_cmd, [SPEC, "--workers", "1", "-o", "csv"])
    assert res.output == csv_path.read_text()


def test_bad_spec_names_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "s.yaml"
    shutil.copy(HERE / "workloads.yaml", tmp_path / "workloads.yaml")
    bad.write_text(Path(SPEC).read_text().replace("inference: [3]", "nosuch: [3]"))
    with pytest.raises(InputError, match=r"spec\.replicas"):
        load_sweep(str(bad))
    with pytest.raises(InputError, match="--axis"):
        chart_svg(run_local(load_sweep(SPEC)), "pending", "nosuch")


def test_dask_local_cluster_gives_the_same_bytes() -> None:
    distributed = pytest.importorskip("distributed")
    spec = load_sweep(SPEC)
    local = run_local(spec, workers=1).csv()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        from drasim.sweep import run_dask
        assert run_dask(spec, cluster.scheduler_address).csv() == local


def test_workloads_go_through_admission(tmp_path: Path) -> None:
    """A workload object the API server would reject fails the point, naming its file and object (as every
    command's inputs do), instead of being simulated."""
    spec = load_sweep(SPEC)
    data = payload(spec, spec.points()[2])
    name, text = data["workloads"][0]
    data["workloads"] = [(name, text.replace("name: inference", "name: Inference_Bad", 1))]
    with pytest.raises(InputError, match="would reject it") as err:
        run_point(data)
    assert err.value.source == name and "Inference_Bad" in (err.value.obj or "")


def test_a_timeline_naming_a_file_is_refused_before_any_point(tmp_path: Path) -> None:
    # Points run from the workload files' text (on dask workers too): no other file is read, so a sweep has
    # no --load-restrictor; the refusal names the workload file, the Timeline and the field, up front.
    (tmp_path / "t.yaml").write_text("apiVersion: drasim.dev/v1alpha1\nkind: Timeline\nmetadata: {name: t}\n"
                                     "spec:\n  events:\n  - {at: 1m, action: apply, file: ../other.yaml}\n")
    spec = tmp_path / "sweep.yaml"
    spec.write_text("apiVersion: drasim.dev/v1alpha1\nkind: Sweep\nspec:\n  fleet: [{nodes: h100, counts: [1]}]\n"
                    "  workloads: [t.yaml]\n")
    with pytest.raises(InputError) as info:
        load_sweep(str(spec))
    err = info.value
    assert (err.source, err.obj, err.path) == (str(tmp_path / "t.yaml"), "Timeline/t", "spec.events[0].file")
    assert err.message == "a sweep's timelines cannot read other files (../other.yaml); put the objects inline"
    res = CliRunner().invoke(sweep_cmd, ["--load-restrictor", "LoadRestrictionsNone", str(spec)])
    assert res.exit_code == 2 and "No such option" in res.output
