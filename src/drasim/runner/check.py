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
