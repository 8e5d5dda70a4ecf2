"""Mutated real inputs for the fuzz tests (issue 11): real manifests, conformance vectors and the demo, changed in
structure and values (and as text), run through the decoders and every command that reads input.

`COUNTS` tallies per command what was tried and how it ended (accepted: exit 0; rejected: a clean message and
a non-zero exit); `bench/fuzz_counts.py` prints it for the note.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner
from hypothesis import strategies as st

from drasim.cli.main import cli
from drasim.demo import demo_paths
from drasim.errors import DrasimError, RejectedError

TESTS = Path(__file__).resolve().parent


def _parses(path: Path) -> bool:
    try:
        return any(d is not None for d in list(yaml.safe_load_all(path.read_text())))
    except yaml.YAMLError:  # a few real files are not YAML at all: mutating them adds nothing
        return False


MANIFESTS = [p for p in sorted([*(TESTS / "realworld").rglob("*.yaml"), *map(Path, demo_paths())]) if _parses(p)]
SCENARIOS = sorted((TESTS / "conformance").rglob("*.yaml"))[::12]  # a spread of the vectors
RULE = """apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: {name: drain}
spec:
  deviceSelector: {driver: gpu.nvidia.com}
  taint: {key: maintenance, effect: NoExecute}
"""
COUNTS: dict[str, Counter[str]] = {}


def _docs(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


_CACHE: dict[Path, list[Any]] = {}


def docs_of(path: Path) -> list[Any]:
    if path not in _CACHE:
        _CACHE[path] = _docs(path)
    return json.loads(json.dumps(_CACHE[path], default=str))  # a fresh copy to mutate


# --- mutations ---------------------------------------------------------------------------------------------

hostile_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=2**63 - 2, max_value=2**65),
    # Go's int32 and int64 bounds and one past them (issue 26: out of range must not decode)
    st.sampled_from([b + d for b in (2**31 - 1, -(2**31), 2**63 - 1, -(2**63)) for d in (0, 1, -1)]),
    st.floats(allow_nan=False), st.text(max_size=12),
    st.sampled_from(["", "1e999999", "-1", "9999-12-31T23:59:59Z", "999999998d", "300000000000", "0x10",
                     "ÿ", "a" * 300, "device.driver == 'x'", "^(a+)+$", "../../etc/passwd", "{", "*alias",
                     "Never", "NoExecute", "All", "ExactCount", "resource.k8s.io/v1beta1", "v1", "default"]),
)
# Counts that would make a simulation create pods until killed (issue #26): refused up front now.
hostile_scalars |= st.sampled_from([10**9, 2**31 - 1, 100_001])
keys = st.sampled_from(["apiVersion", "kind", "metadata", "name", "namespace", "spec", "status", "devices",
                        "requests", "exactly", "firstAvailable", "count", "allocationMode", "selectors", "cel",
                        "expression", "deviceClassName", "nodeName", "pool", "driver", "attributes",
                        "capacity", "taints", "tolerations", "resourceClaims", "containers", "replicas",
                        "allocation", "results", "reservedFor", "sharedCounters", "consumesCounters",
                        "parallelism", "completions", "priority", "generation", "tolerationSeconds", "int",
                        "resourceSliceCount"]) | st.text(
    max_size=8)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        value = value[p]
    return value


def _set(root: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root


@st.composite
def mutate_tree(draw: st.DrawFn, docs: list[Any]) -> list[Any]:
    """1-4 structural or value changes anywhere in the documents."""
    for _ in range(draw(st.integers(1, 4))):
        paths = _paths(docs)[1:]  # the list of documents itself stays a list
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        target = _get(docs, path)
        op = draw(st.sampled_from(["scalar", "delete", "duplicate", "wrap", "add", "empty", "deep", "swap", "many"]))
        if op == "scalar":
            docs = _set(docs, path, draw(hostile_scalars))
        elif op == "delete" and path:
            parent = _get(docs, path[:-1])
            del parent[path[-1]]
        elif op == "duplicate" and path and isinstance(_get(docs, path[:-1]), list):
            _get(docs, path[:-1]).append(json.loads(json.dumps(target)))
        elif op == "wrap":
            docs = _set(docs, path, [target] if draw(st.booleans()) else {"x": target})
        elif op == "add" and isinstance(target, dict):
            target[draw(keys)] = draw(hostile_scalars | st.just({}) | st.just([]))
        elif op == "empty":
            docs = _set(docs, path, {} if isinstance(target, dict) else [] if isinstance(target, list) else "")
        elif op == "deep":
            nested: Any = target
            for _ in range(draw(st.integers(5, 60))):
                nested = [nested] if draw(st.booleans()) else {"a": nested}
            docs = _set(docs, path, nested)
        elif op == "swap" and isinstance(target, dict) and target:
            k = draw(st.sampled_from(sorted(target, key=str)))
            target[draw(keys)] = target.pop(k)
        elif op == "many" and isinstance(target, list) and target and len(json.dumps(target)) < 4000:
            target.extend([json.loads(json.dumps(target[0]))] * draw(st.integers(2, 40)))
    return docs


@st.composite
def render(draw: st.DrawFn, docs: list[Any]) -> tuple[bytes, str]:
    """The documents as YAML or JSON text, sometimes damaged as text too: (bytes, file suffix)."""
    form = draw(st.sampled_from(["yaml", "yaml", "json", "json-list"]))
    if form == "yaml":
        text, suffix = yaml.safe_dump_all(docs, sort_keys=False), ".yaml"
    elif form == "json":
        text, suffix = json.dumps(docs[0] if len(docs) == 1 else docs, indent=1), ".json"
    else:
        text, suffix = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}), ".json"
    data = text.encode()
    damage = draw(st.sampled_from(["none", "none", "none", "truncate", "insert", "dupline", "bytes", "alias"]))
    if damage == "truncate" and data:
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif damage == "insert":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"{", b"]", b": ", b"\n- ", b"\t", b"&a ", b"*a", b"!!python/object ",
                                                  b"\x00", b"\xff", b'"', b"---\n", b"<<: *a\n"])) + data[at:]
    elif damage == "dupline":
        lines = data.split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
        data = b"\n".join(lines)
    elif damage == "bytes" and data:
        data = draw(st.binary(min_size=1, max_size=8)) + data
    elif damage == "alias" and suffix == ".yaml":
        data = b"x: &a [1, 2]\ny: [*a, *a]\n---\n" + data
    return data, suffix


@st.composite
def mutated_manifest(draw: st.DrawFn, corpus: list[Path] = MANIFESTS) -> tuple[bytes, str, str]:
    """(bytes, suffix, seed file name) of a mutated corpus file."""
    path = draw(st.sampled_from(corpus))
    docs = docs_of(path)
    if docs and draw(st.integers(0, 9)) > 0:
        docs = draw(mutate_tree(docs))
    data, suffix = draw(render(docs or [{}]))
    return data, suffix, path.name


# --- running a command ---------------------------------------------------------------------------------------

Command = Callable[[Path, Path], list[str]]
DEMO_GATE = ["--feature-gates", "DRADeviceTaintRules=true"]  # (input file, scratch dir) -> argv

COMMANDS: dict[str, Command] = {
    "validate": lambda f, d: ["validate", "-f", str(f)],
    "lint": lambda f, d: ["lint", "-f", str(f)],
    "simulate": lambda f, d: ["simulate", "-f", str(f), "-o", "json", "--report", str(d / "out" / "report.html")],
    "explain": lambda f, d: ["explain", "pods", "-A", "-f", str(f)],
    "taint dry-run": lambda f, d: ["taint", "dry-run", str(d / "rule.yaml"), "-f", str(f), "--effect", "NoExecute",
                                   "--feature-gates", "DRADeviceTaintRules=true"],
    # The demo cluster with its DeviceTaintRule served (as `drasim simulate` runs it), so only the input is refused.
    "taint dry-run (rule)": lambda f, d: ["taint", "dry-run", str(f), "-f", demo_paths()[0], *DEMO_GATE],
    "capacity": lambda f, d: ["capacity", "-f", demo_paths()[0], "--workload", str(f), "--max", "3", *DEMO_GATE],
    "doctor": lambda f, d: ["doctor", "--from-dump", str(f.parent)],
}


def run(command: str, data: bytes, suffix: str, argv: Command | None = None, names: tuple[str, ...] = ()) -> str:
    """Run `command` on `data` (written to a fresh directory); return "accepted" or "rejected". Fails the test
    on a traceback, on an error that names no file or object (or none of `names`, such as an option), or when
    a rejected run left an output file."""
    argv = argv or COMMANDS[command]
    if not data and not names:
        data = b"{}"
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        (scratch / "rule.yaml").write_text(RULE)
        (scratch / "out").mkdir()
        (scratch / "in").mkdir()
        path = scratch / "in" / f"input{suffix}"
        path.write_bytes(data)
        args = argv(path, scratch)
        result = CliRunner().invoke(cli, args, catch_exceptions=True)
        exc = result.exception
        outcome = "accepted" if result.exit_code == 0 and exc is None else "rejected"
        if exc is not None and not isinstance(exc, SystemExit):
            assert isinstance(exc, DrasimError), (
                f"drasim {' '.join(args)} raised {type(exc).__name__}: {exc}\n--- input ---\n"
                f"{data[:3000].decode('utf-8', 'replace')}")
            assert exc.exit_code != 0
            text = str(exc)
            named = str(path) in text or str(scratch) in text or exc.obj or any(n in text for n in names)
            assert named, f"no file or object named: {text}"
        # Objects rejected at admission end a whole run (exit 2 after the answer): its report lists them.
        if outcome == "rejected" and not isinstance(exc, RejectedError):
            left = sorted(os.listdir(scratch / "out"))
            assert not left, f"drasim {' '.join(args)} failed but wrote {left}"
    COUNTS.setdefault(command, Counter())[outcome] += 1
    return outcome
