"""sources/files.py: files, directories and stdin; YAML/JSON syntax errors, alias bombs, clear messages."""

from __future__ import annotations

import glob
import io
import json
import os
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.resource import DeviceClass, ResourceSlice
from drasim.errors import InputError
from drasim.sources import files
from drasim.sources.files import load_bytes, load_file, load_paths, parse_yaml
from hypothesis_budget import examples

CONFORMANCE = os.path.join(os.path.dirname(__file__), "..", "conformance")

SLICE_YAML = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: {name}
spec:
  driver: gpu.nvidia.com
  nodeName: node-1
  pool: {{name: node-1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      productName: {{string: NVIDIA H100 80GB HBM3}}
    capacity:
      memory: {{value: 81559Mi}}
"""
CLASS_YAML = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type != ''"}
"""


def write(path: Path, text: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text)
    else:
        path.write_bytes(text)
    return str(path)


def error_of(data: bytes, source: str = "in.yaml") -> InputError:
    with pytest.raises(InputError) as info:
        load_bytes(data, source=source, json=True if source.endswith(".json") else None)
    return info.value


# --- reading -------------------------------------------------------------------------------------------


def test_multi_document_yaml_with_empty_documents(tmp_path: Path) -> None:
    text = "---\n" + SLICE_YAML.format(name="a") + "---\n---\n# only a comment\n---\n" + CLASS_YAML
    result = load_paths([write(tmp_path / "m.yaml", text)])
    assert [type(o) for o in result.objects] == [ResourceSlice, DeviceClass]
    assert result.sources == [str(tmp_path / "m.yaml")] * 2 and result.warnings == []


def test_empty_files_are_fine(tmp_path: Path) -> None:
    for name in ("e.yaml", "e.json", "c.yml"):
        write(tmp_path / name, "" if name != "c.yml" else "# nothing\n")
    assert load_paths([str(tmp_path)]).objects == []
    (tmp_path / "empty").mkdir()
    assert load_paths([str(tmp_path / "empty")]).warnings == [
        f"{tmp_path / 'empty'}: no .yaml/.yml/.json files in this directory"
    ]


def test_directory_is_recursive_sorted_and_filtered(tmp_path: Path) -> None:
    write(tmp_path / "b" / "2.yaml", SLICE_YAML.format(name="b2"))
    write(tmp_path / "b" / "1.yml", SLICE_YAML.format(name="b1"))
    write(tmp_path / "a.json", json.dumps(yaml.safe_load(SLICE_YAML.format(name="a"))))
    write(tmp_path / "c" / "deep" / "x.YAML", SLICE_YAML.format(name="x"))
    write(tmp_path / "README.md", "# not a manifest: {")
    write(tmp_path / "notes.txt", "::: nope")
    result = load_paths([str(tmp_path)])
    assert [o.metadata.name for o in result.objects] == ["a", "b1", "b2", "x"]
    assert result.sources[0].endswith("a.json")


def test_explicit_files_are_read_whatever_their_name(tmp_path: Path) -> None:
    path = write(tmp_path / "slice.txt", SLICE_YAML.format(name="t"))
    assert load_paths([path]).objects[0].metadata.name == "t"


def test_stdin_yaml_and_json() -> None:
    text = SLICE_YAML.format(name="in")
    assert load_paths(["-"], stdin=io.StringIO(text)).objects[0].metadata.name == "in"
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(text)]}).encode()
    result = load_paths(["-"], stdin=io.BytesIO(data))
    assert result.objects[0].metadata.name == "in" and result.sources == ["-"]


def test_json_list_file(tmp_path: Path) -> None:
    items = [yaml.safe_load(SLICE_YAML.format(name=f"s{i}")) for i in range(3)]
    path = write(
        tmp_path / "l.json",
        json.dumps({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSliceList", "items": items}),
    )
    assert [o.metadata.name for o in load_file(path).objects] == ["s0", "s1", "s2"]


def test_yaml_list_from_kubectl(tmp_path: Path) -> None:
    items = [yaml.safe_load(SLICE_YAML.format(name=f"s{i}")) for i in range(2)]
    text = yaml.safe_dump(
        {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}
    )
    assert len(load_paths([write(tmp_path / "l.yaml", text)]).objects) == 2


def test_flow_style_yaml_starting_with_a_brace() -> None:
    data = b"{apiVersion: v1, kind: Node, metadata: {name: n}}\n"
    assert load_bytes(data, source="n.yaml").objects[0].metadata.name == "n"


def test_timestamps_stay_strings_until_the_schema_says_time() -> None:
    data = (
        b"apiVersion: v1\nkind: Node\nmetadata: {name: n, creationTimestamp: 2026-07-01T10:00:00Z,\n"
        b"  labels: {since: 2026-07-01}}\n"
        b"spec:\n  taints: [{key: k, effect: NoSchedule, timeAdded: 2026-07-01}]\n"
    )
    node = load_bytes(data, source="n.yaml").objects[0]
    assert node.metadata.creation_timestamp is not None and node.metadata.creation_timestamp.year == 2026
    assert node.metadata.labels == {"since": "2026-07-01"}
    assert parse_yaml("a: !!timestamp 2026-07-01\n", source="x") == [{"a": "2026-07-01"}]


def test_ordinary_aliases_and_merge_keys_work() -> None:
    text = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: d
  allNodes: true
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: &attrs
      model: {string: H100}
    capacity: &cap {memory: {value: 80Gi}}
  - name: gpu-1
    attributes: *attrs
    capacity:
      <<: *cap
      cores: {value: 132}
"""
    rs = load_bytes(text.encode(), source="a.yaml").objects[0]
    assert isinstance(rs, ResourceSlice)
    assert rs.spec.devices[1].attributes == rs.spec.devices[0].attributes
    assert set(rs.spec.devices[1].capacity) == {"memory", "cores"}


def test_fast_constructor_matches_pyyaml() -> None:
    paths = sorted(glob.glob(os.path.join(CONFORMANCE, "*", "*.yaml")))[::25]
    special = "a: !!binary aGVsbG8=\nb: !!set {x, y}\nc: [1, 0x10, 1.5, .inf, ~, yes, 2026-01-01, !!str 3]\n"
    texts = [Path(p).read_text() for p in paths] + [special, "x: &x {a: 1}\ny: {<<: *x, b: 2}\n"]
    for text in texts:
        assert parse_yaml(text, source="x") == list(yaml.load_all(text, Loader=files._Loader))
    with pytest.raises(InputError, match=r"line 1, column 3.*unhashable key"):
        parse_yaml("? [complex]\n: key\n", source="x")


# --- errors ---------------------------------------------------------------------------------------------


def test_malformed_yaml_names_line_and_column() -> None:
    err = error_of(b"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n   bad: x\n", "bad.yaml")
    assert (
        str(err)
        == "bad.yaml: invalid YAML (line 5, column 7): mapping values are not allowed in this context"
    )
    err = error_of(b"items: [1, 2\nnext: 3\n")
    assert "(line 2, column 5)" in err.message and "flow sequence" in err.message


def test_malformed_json_names_line_and_column() -> None:
    err = error_of(b'{\n  "apiVersion": "v1",\n  "kind": "Node",\n}\n', "bad.json")
    assert str(err).startswith("bad.json: invalid JSON: ") and "line 4, column 1" in str(err)


def test_alias_bomb_is_rejected() -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    err = error_of(("\n".join(lines) + "\n").encode(), "bomb.yaml")
    assert err.source == "bomb.yaml"
    assert err.message.startswith(
        "YAML aliases expand to more than 1,000,000 nodes in this input (reached in document 1")


def test_alias_limit_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: &a [1, 2, 3, 4]\nb: [*a, *a, *a, *a, *a, *a]\n"
    assert parse_yaml(text, source="x")[0]["b"][5] == [1, 2, 3, 4]
    monkeypatch.setattr(files, "MAX_ALIAS_EXPANSION", 20)
    with pytest.raises(InputError, match="more than 20 nodes"):
        parse_yaml(text, source="x")


def test_recursive_alias_is_rejected() -> None:
    assert "recursive alias" in error_of(b"a: &a [1, *a]\n").message


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    assert error_of(b"[" * 100_000).message == "invalid JSON (line 1, column 201): nested more than 200 levels deep"
    assert error_of(b'{"a":' * 100_000, "deep.json").message == \
        "invalid JSON (line 1, column 1001): nested more than 200 levels deep"


def test_not_utf8() -> None:
    assert error_of(b"apiVersion: v1\nkind: Node\nmetadata: {name: \xff}\n").message == (
        "not UTF-8 text (invalid byte at offset 43)"
    )


def test_missing_path() -> None:
    with pytest.raises(InputError) as info:
        load_paths(["/nonexistent/x.yaml"])
    assert str(info.value) == "/nonexistent/x.yaml: no such file or directory"


def test_decoding_errors_name_file_object_and_path(tmp_path: Path) -> None:
    text = SLICE_YAML.format(name="s").replace("81559Mi", "80GB")
    path = write(tmp_path / "dir" / "bad.yaml", CLASS_YAML + "---\n" + text)
    with pytest.raises(InputError) as info:
        load_paths([str(tmp_path)])
    err = info.value
    assert (err.source, err.obj, err.path) == (
        path,
        "ResourceSlice/s",
        "spec.devices[0].capacity.memory.value",
    )
    assert err.message.startswith("quantities must match the regular expression")


def test_unknown_kind_is_a_warning(tmp_path: Path) -> None:
    path = write(
        tmp_path / "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: ns}\n---\n" + CLASS_YAML,
    )
    result = load_paths([path])
    assert len(result.objects) == 1
    assert result.warnings == [f"{path}: ConfigMap/ns/c: skipped: kind ConfigMap (v1) is not used by drasim"]


def test_a_yaml_sequence_of_objects() -> None:
    data = ("- " + CLASS_YAML.replace("\n", "\n  ")).encode()
    assert len(load_bytes(data, source="seq.yaml").objects) == 1
    with pytest.raises(InputError) as info:
        load_bytes(b"- 1\n", source="seq.yaml")
    assert str(info.value) == "seq.yaml: [0]: expected a Kubernetes object (a mapping), got int"


# The alias guard's precheck, as first written: a marker after the start, whitespace or `,[{:-`.
_OLD_ANCHOR = re.compile(r"(?:^|[\s,\[{:-])&[^\s,\[\]{}&]")
_OLD_ALIAS = re.compile(r"(?:^|[\s,\[{:-])\*[^\s,\[\]{}]")


@settings(max_examples=examples(300))
@given(st.text(alphabet=st.sampled_from("&*ab ,[]{}:-\n\t\u2028\xa0\x85#'\""), max_size=12))
def test_the_marker_precheck_finds_what_the_anchored_patterns_find(text: str) -> None:
    assert files._has_marker(text, files._ANCHOR_RE) == bool(_OLD_ANCHOR.search(text))
    assert files._has_marker(text, files._ALIAS_RE) == bool(_OLD_ALIAS.search(text))
