"""The report in a real headless Chromium: cells and their colours per workload, pending pods, drill-down."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from drasim.allocator.versions import features_for_version
from drasim.api.decode import decode_documents
from drasim.cli.simulate import load_inputs
from drasim.demo import demo_paths
from drasim.fleet.generate import NodeSpec, generate_fleet
from drasim.report import collect, render
from drasim.report.html import PAGE
from drasim.sim.engine import SimulationOptions, simulate


def _rgb(colour: str) -> str:
    h = colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


def _open(browser: Any, tmp_path: Path, page: str) -> None:
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    browser.get(path.as_uri())
    assert browser.execute_script("return document.body.dataset.ready") == "1"


def test_demo_report_in_browser(browser: Any, tmp_path: Path) -> None:
    objects, timelines, _ = load_inputs(demo_paths())
    data = collect(simulate(objects, timelines, SimulationOptions(features=features_for_version("1.36"))))
    _open(browser, tmp_path, render(data))
    legend = {e.get_attribute("data-workload"): e.get_attribute("data-colour")
              for e in browser.find_elements("css selector", ".legend-item[data-workload]")}
    assert legend == {w.name: w.colour for w in data.workloads if w.units}  # pods holding no device: no key
    cells = browser.execute_script(
        "return [...document.querySelectorAll('.unit .cell[data-workload]')]"
        ".map(c => [c.dataset.workload, getComputedStyle(c).backgroundColor])")
    assert len(cells) == sum(len(u[4]) for n in data.nodes for u in n["u"]) == 18
    for workload, background in cells:
        # Chromium reports rgba(r, g, b, 1) or rgb(r, g, b) depending on its version.
        assert background.replace("rgba(", "rgb(").replace(", 1)", ")") == _rgb(legend[workload])
    held = [w for w, _ in cells]
    assert held.count("Deployment/inference") == 14 and held.count("Pod/mig-pair") == 2
    # The two MIG slices sit inside one GPU, at their memory slices; the other GPU is drawn idle.
    mig = browser.find_element("css selector", '.node[data-node="a100-mig-05"]')
    units = mig.find_elements("css selector", ".unit")
    assert [len(u.find_elements("css selector", ".cell[data-workload]")) for u in units] == [2, 0]
    assert "gpu-0 3/8" in mig.text
    pending = browser.find_elements("css selector", "#pending-list li.pending")
    assert sorted(p.get_attribute("data-workload") for p in pending) == ["Pod/mig-on-mig-off-node",
                                                                         "Pod/urgent-training"]
    assert "mig-disabled" in browser.find_element("id", "pending-list").text
    segments = browser.find_elements("css selector",
                                     '.workload[data-workload="Deployment/inference"] rect[data-segment]')
    assert [(s.get_attribute("data-segment"), s.get_attribute("data-count")) for s in segments] == [
        ("gpu/h100", "8"), ("gpu/a100-pair", "3")]


def test_large_fleet_aggregates_then_drills_down(browser: Any, tmp_path: Path) -> None:
    fleet = generate_fleet([NodeSpec("h100", count=130, gpus_per_node=2), NodeSpec("a100-80gb", count=3,
                                                                                  gpus_per_node=2)]).objects
    workload = decode_documents([{
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 20, "selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"resourceClaims": [{"name": "g", "resourceClaimTemplateName": "one"}],
                     "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "g"}]}}]}}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "one", "namespace": "default"},
         "spec": {"spec": {"devices": {"requests": [
             {"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}}},
    ], source="test").objects
    data = collect(simulate([*fleet, *workload]))
    assert data.summary["placed"] == 20
    _open(browser, tmp_path, render(data))
    assert browser.find_elements("css selector", ".node") == []  # aggregate first: every group closed
    groups = browser.find_elements("css selector", "details.group")
    assert len(groups) == 2
    big = next(g for g in groups if "130 node(s)" in g.text)
    big.find_element("tag name", "summary").click()
    # The details element's toggle event (which draws the page) is dispatched as a task: wait for it.
    _until(lambda: len(big.find_elements("css selector", ".node")) == PAGE)
    assert "page 1 of 3" in big.text
    big.find_element("css selector", ".pager input").send_keys("-129\n")
    _until(lambda: [n.get_attribute("data-node") for n in big.find_elements("css selector", ".node")]
           == ["h100-80gb-hbm3-129"])
    browser.find_element("id", "find").send_keys("a100\n")
    _until(lambda: len(browser.find_elements("css selector", "#found .node")) == 3)


def _until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "the page did not get there in time"
        time.sleep(0.05)
