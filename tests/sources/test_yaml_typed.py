"""YAML read through rapidyaml's JSON and the typed decoders (`files._load_yaml`) gives what the full loader and the
dict decoder give: the same objects, versions, warnings and error messages (file, object, field, line/column)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from decode_summary import summary
from drasim.errors import InputError
from drasim.sources import files, parsecache, yamlfast, yamlscalars
from drasim.sources.jsonkeys import duplicate_keys
from fuzz_inputs import mutated_manifest
from hypothesis_budget import examples

ROOT = Path(__file__).resolve().parent.parent.parent
INPUTS = sorted(p for p in ROOT.joinpath("tests").rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))


@contextmanager
def _full_loader() -> Iterator[None]:
    """Every text read by the full loader (libyaml, PyYAML's composer) and decoded from dicts."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(yamlfast, "ryml", None)
        yield


def _outcome(data: bytes, keep_going: bool = False) -> Any:
    try:
        return summary(files.load_bytes(data, source="in.yaml", keep_going=keep_going))
    except InputError as err:
        return ("error", err.message, err.source, err.obj, err.path)


def _same(data: bytes, keep_going: bool = False) -> Any:
    fast = _outcome(data, keep_going)
    with _full_loader():
        assert fast == _outcome(data, keep_going)
    return fast


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRASIM_CACHE_DIR", "off")


def test_every_yaml_input_of_the_suite_decodes_the_same() -> None:
    assert len(INPUTS) > 500
    for path in INPUTS:
        _same(path.read_bytes(), keep_going=True)


@settings(max_examples=examples(300), deadline=None)
@given(mutated_manifest(), st.booleans())
def test_changed_real_manifests_decode_the_same(case: tuple[bytes, str, str], keep_going: bool) -> None:
    _same(case[0], keep_going)


_NUMBERS = ["1e3", "1.5e3", "1.5e+3", "-2E-5", "123456789012345678901", "9223372036854775808", "1.5", "-0", "0",
            "-0.0", "42", "'1e3'", '"7"', "true", "null", "2Gi", "4e3f-x"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(_NUMBERS), min_size=6, max_size=6), st.booleans())
def test_numbers_json_reads_otherwise_decode_as_yaml_reads_them(values: list[str], keep_going: bool) -> None:
    """A bare `1e3` is a string in YAML 1.1 and a float in JSON: such texts are decoded from YAML's documents."""
    count, generation, label, attr, cap, extra = values
    text = (f"apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\n  labels: {{a: {label}}}\n"
            f"spec:\n  driver: d\n  nodeName: n\n  pool: {{name: p, generation: {generation}, resourceSliceCount: "
            f"{count}}}\n  devices:\n  - name: d0\n    attributes:\n      x: {{int: {attr}}}\n      y: {{string: "
            f"{extra}}}\n    capacity:\n      mem: {{value: {cap}}}\n---\napiVersion: v1\nkind: Node\n"
            f"metadata: {{name: n, labels: {{l: {extra}}}}}\n")
    _same(text.encode(), keep_going)


def test_numbers_json_reads_otherwise_are_found() -> None:
    risky = [b"1e3", b'{"a": 1e3}', b'[1,\n 2E5]', b'{"a": -1.5e+3}', b'{"a": 1234567890123456789}', b"[-0.5E1]"]
    fine = [b'"GPU-4e3"', b'{"a": 1.5}', b'{"a": -123456789012345678, "b": "x 1e3"}', b"[]", b"[1, -0, 0.25]"]
    for data in risky:
        with pytest.raises(ValueError):
            duplicate_keys(data, number=yamlfast.json_number)
    assert not any(duplicate_keys(data, number=yamlfast.json_number) for data in fine)


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n",  # a key set twice: the full loader's lines
    "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a, x: 1}\n",
    "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n---\nkind: Node\napiVersion: v1\nmetadata: {name: b}\n",
    "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n",
    "- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- 3\n",
    "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {capacity: {cpu: 8x}}\n---\napiVersion: v1\n"
    "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}], priority: 1.5}\n",
    "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata: {name: c}\n",
    "apiVersion: drasim.dev/v1alpha1\nkind: Timeline\nmetadata: {name: t}\n---\napiVersion: v1\nkind: Event\n",
    "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: [\n",
])
def test_streams_decode_the_same(text: str) -> None:
    for keep_going in (False, True):
        _same(text.encode(), keep_going)


def test_the_cache_keeps_the_json_and_reads_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRASIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(parsecache, "MIN_BYTES", 0)
    data = b"apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n"
    first, docs = _outcome(data), files.parse_yaml(data.decode(), source="in.yaml")
    [entry] = (tmp_path / f"yaml-v{parsecache.FORMAT}").glob("*.msgpack")
    assert entry.read_bytes().split(b"\n", 1)[1][:1] == b"S"  # rapidyaml's JSON of a stream
    monkeypatch.setattr(yamlfast, "emit",
                        lambda *args, **kwargs: pytest.fail("parsed although the cache holds the input"))
    assert _outcome(data) == first
    assert files._parse_cached(data, source="in.yaml", budget=None, syntax_errors=None) == docs


@pytest.mark.parametrize("text", [
    "a: nan\n", "a: inf\n", "a: -inf\n", "a: infinity\n", "a: [x, nan]\n", "nan: 1\n", "{a: inf}\n", "- +nan\n",
])
def test_plain_nan_and_inf_stay_strings(text: str) -> None:
    """rapidyaml's JSON emitter rewrites plain `nan` and `inf` (".nan", ".inf"): such texts are declined."""
    assert yamlfast.read_documents(text, yamlscalars.plain_scalar, yaml.reader.Reader.NON_PRINTABLE) is None
    with _full_loader():
        full = files.parse_yaml(text, source="in.yaml")
    assert files.parse_yaml(text, source="in.yaml") == full
    assert "nan" in repr(full) or "inf" in repr(full)


def test_a_tree_deeper_than_the_emitter_goes_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    """rapidyaml's emitter stops (printing to descriptor 2) below drasim's depth limit: the full loader reads it."""
    text = "apiVersion: v1\nkind: ConfigMap\ndata:\n" + "".join(f"{'  ' * (i + 1)}a{i}:\n" for i in range(150)) + \
        f"{'  ' * 151}x\n"
    assert yamlfast.read_documents(text, yamlscalars.plain_scalar, yaml.reader.Reader.NON_PRINTABLE) is None
    _same(text.encode())
    assert capfd.readouterr() == ("", "")


def test_a_json_entry_read_is_its_last_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRASIM_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(parsecache, "MIN_BYTES", 0)
    data = b"apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"
    _outcome(data)
    [entry] = (tmp_path / f"yaml-v{parsecache.FORMAT}").glob("*.msgpack")
    os.utime(entry, (1000, 1000))
    assert isinstance(parsecache.lookup(entry.stem), yamlfast.Emitted)
    assert entry.stat().st_mtime > 1000


@pytest.mark.parametrize("data", [
    b"apiVersion: v1\nkind: Namespace\nmetadata: &m {name: a}\n",  # ASCII, declined: its str is built then
    b"apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {x: yes}}\n",
    b"a: " + b"[" * 250 + b"]" * 250 + b"\n",  # ASCII and too deep: the depth guard decodes it to place the error
    b"a:\n" + b"".join(b" " * i + b"- \n" for i in range(0, 420, 2)),
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {x: \u00e9}}\n".encode(),
    b"\xef\xbb\xbfapiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",  # a byte order mark: not ASCII
])
def test_ascii_texts_read_without_their_str_read_the_same(data: bytes) -> None:
    _same(data)
    _same(data, keep_going=True)
