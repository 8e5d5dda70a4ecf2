"""Comparing a scenario run with the file's `expect` block (status, devices as multisets, error text)."""

from __future__ import annotations

from collections import Counter
from typing import Any


def _device_strings(result: dict[str, Any]) -> list[str]:
    return [f"{d['request']}={d['driver']}/{d['pool']}/{d['device']}" for d in result["devices"]]


def check_steps(steps: list[dict[str, Any]], expect: list[dict[str, Any]]) -> list[str]:
    """Human-readable mismatches between the run's steps and the expectations (empty = pass)."""
    problems: list[str] = []
    if len(steps) != len(expect):
        problems.append(f"{len(steps)} steps ran, {len(expect)} expected")
    for n, (got, want) in enumerate(zip(steps, expect, strict=False)):
        label = f"step {n + 1} ({', '.join(got.get('claims', []))} on {got.get('node')})"
        if got["status"] != want.get("status"):
            detail = f": {got['error']}" if got.get("error") else ""
            problems.append(f"{label}: status {got['status']}{detail}, expected {want.get('status')}")
            continue
        if got["status"] == "error":
            needle = want.get("errorContains", "")
            if needle not in got.get("error", ""):
                problems.append(f"{label}: error text differs\n  got:      {got.get('error')}\n"
                                f"  expected: {needle}")
        elif got["status"] == "allocated":
            by_name = {r["claim"].rsplit("/", 1)[-1]: _device_strings(r) for r in got.get("results", [])}
            for ref, devices in (want.get("claims") or {}).items():
                have = by_name.get(ref.rsplit("/", 1)[-1])
                if have is None:
                    problems.append(f"{label}: no result for claim {ref}")
                elif Counter(have) != Counter(devices):
                    problems.append(f"{label}: claim {ref}\n  got:      {sorted(have)}\n"
                                    f"  expected: {sorted(devices)}")
    return problems


def diff_upstream(steps: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> list[str]:
    """Field-by-field differences from a recorded upstream output (results, configs, node selectors).

    Error texts are compared exactly; result lists in order (upstream sorts them for `stable`).
    """
    problems: list[str] = []
    for n, (got, want) in enumerate(zip(steps, upstream, strict=False)):
        for key in ("node", "claims", "status", "error", "nodeLocalError"):
            if got.get(key) != want.get(key):
                problems.append(f"step {n + 1}: {key}: got {got.get(key)!r}, upstream {want.get(key)!r}")
        got_results, want_results = got.get("results", []), want.get("results", [])
        if len(got_results) != len(want_results):
            problems.append(f"step {n + 1}: {len(got_results)} results, upstream {len(want_results)}")
            continue
        for g, w in zip(got_results, want_results, strict=True):
            for key in sorted(set(g) | set(w)):
                if g.get(key) != w.get(key):
                    problems.append(f"step {n + 1}: claim {w.get('claim')}: {key}\n  got:      {g.get(key)}\n"
                                    f"  upstream: {w.get(key)}")
    if len(steps) != len(upstream):
        problems.append(f"{len(steps)} steps, upstream {len(upstream)}")
    return problems
