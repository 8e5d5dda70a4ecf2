"""Run every command over each real manifest in tests/realworld (or DIR): accepted, rejected (why), tracebacks.

Usage: python bench/realworld_commands.py [DIR] [--json OUT]. Runs in-process (click's CliRunner); each
file is read alone, simulate adds a small generated fleet (H100s, an A100 in MIG mode) so pods can land.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import sys
import tempfile
from typing import Any

import yaml
from click.testing import CliRunner

from drasim.cli.main import cli
from drasim.errors import DrasimError

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "..", "tests", "realworld")
RULE = """apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: all-devices}
spec:
  deviceSelector: {}
  taint: {key: maintenance, effect: NoExecute}
"""


def _files(root: str) -> list[str]:
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs.sort()
        out += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith((".yaml", ".yml", ".json"))]
    return sorted(out)


def _first_pod(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            docs = list(yaml.safe_load_all(f))
    except Exception:
        return None
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") == "Pod":
            meta = doc.get("metadata") or {}
            if isinstance(meta, dict) and isinstance(meta.get("name"), str):
                return f"{meta.get('namespace') or 'default'}/{meta['name']}"
    return None


def _run(args: list[str]) -> tuple[str, str]:
    """(outcome, detail): ok | exit-N | error (a DrasimError) | TRACEBACK."""
    result = CliRunner().invoke(cli, args, catch_exceptions=True)
    exc = result.exception
    text = (result.output or "")
    if exc is None or (isinstance(exc, SystemExit) and not exc.code):
        return "ok", _summary(text)
    if isinstance(exc, SystemExit):
        return f"exit-{exc.code}", _problem(text)
    if isinstance(exc, DrasimError):
        return "error", _norm(str(exc))
    return "TRACEBACK", f"{type(exc).__name__}: {exc}"


def _summary(text: str) -> str:
    m = re.search(r"(\d+) placed, (\d+) pending", text)
    if m:
        return f"placed={m.group(1)} pending={m.group(2)}"
    return ""


def _problem(text: str) -> str:
    for line in text.splitlines():
        s = line.strip()
        if s.startswith(("ERROR", "error:", "Error")) or "rejected" in s.lower():
            return _norm(s)
    return _norm(text.strip().splitlines()[-1] if text.strip() else "")


def _norm(s: str) -> str:
    s = re.sub(r"\S*/realworld/\S*", "FILE", s)
    s = re.sub(r'"[^"]*"', '"…"', s)
    return s[:140]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=DEFAULT_DIR)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="drasim-rw-")
    fleet = os.path.join(tmp, "fleet")
    outcome, detail = _run(["fleet", "--nodes", "h100:2", "--nodes", "a100-40gb:mig-dynamic:1",
                            "--output-dir", fleet])
    assert outcome == "ok", detail
    rule = os.path.join(tmp, "rule.yaml")
    with open(rule, "w", encoding="utf-8") as f:
        f.write(RULE)
    rows: list[dict[str, Any]] = []
    for path in _files(args.dir):
        rel = os.path.relpath(path, args.dir)
        dump = os.path.join(tmp, "dump")
        shutil.rmtree(dump, ignore_errors=True)
        os.makedirs(dump)
        shutil.copy(path, dump)
        runs = {
            "validate": ["validate", "-f", path],
            "lint": ["lint", "-f", path],
            "simulate": ["simulate", "-f", fleet, "-f", path],
            "taint": ["taint", "dry-run", rule, "-f", fleet, "-f", path],
            "doctor": ["doctor", "--from-dump", dump],
        }
        pod = _first_pod(path)
        if pod:
            runs["explain"] = ["explain", "pod", pod, "-f", fleet, "-f", path]
        row: dict[str, Any] = {"file": rel}
        for name, argv in runs.items():
            row[name] = _run(argv)
        rows.append(row)
    shutil.rmtree(tmp, ignore_errors=True)
    commands = ["validate", "lint", "simulate", "explain", "taint", "doctor"]
    print(f"{len(rows)} files")
    for name in commands:
        outcomes = collections.Counter(r[name][0] for r in rows if name in r)
        print(f"\n{name}: " + ", ".join(f"{k}={v}" for k, v in sorted(outcomes.items())))
        reasons = collections.Counter(r[name][1] for r in rows if name in r and r[name][0] != "ok")
        for reason, n in reasons.most_common(12):
            print(f"    {n:3d}  {reason}")
        if name == "simulate":
            placed = sum(int(re.search(r"placed=(\d+)", r[name][1]).group(1)) for r in rows
                         if r[name][0] == "ok" and "placed=" in r[name][1])
            print(f"    pods placed over all files: {placed}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    tracebacks = [(r["file"], n, r[n][1]) for r in rows for n in commands if n in r and r[n][0] == "TRACEBACK"]
    for t in tracebacks:
        print("TRACEBACK", *t, file=sys.stderr)


if __name__ == "__main__":
    main()
