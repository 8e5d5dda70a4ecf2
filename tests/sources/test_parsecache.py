"""sources/parsecache.py: a cached parse is the parse itself; what is not plain data is never cached."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drasim.cli.main import cli
from drasim.errors import InputError
from drasim.sources import files, parsecache
from hypothesis_budget import examples


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache directory, used for inputs of any size."""
    root = tmp_path / "cache"
    monkeypatch.setenv("DRASIM_CACHE_DIR", str(root))
    monkeypatch.setattr(parsecache, "MIN_BYTES", 0)
    return root


def _entries(root: Path) -> list[Path]:
    folder = root / f"yaml-v{parsecache.FORMAT}"
    return sorted(folder.glob("*.msgpack")) if folder.exists() else []


def _parse(data: bytes, *, keep_going: bool = False) -> tuple[list[Any], list[InputError]]:
    errors: list[InputError] = []
    docs = files._parse_cached(data, source="in.yaml", budget=None, syntax_errors=errors if keep_going else None)
    return docs, errors


def _no_parse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("parsed although the cache holds the input")


# Scalars whose YAML 1.1 reading is easy to get wrong: written plain, the cache must keep what they became.
_TRICKY = ["010", "0o17", "0x1F", "1_000", "+1", "-0", "1:20", "190:20:30", "2024-01-01", "yes", "No", "ON",
           "off", "y", "n", "~", "null", "Null", "true", "FALSE", ".inf", "-.Inf", ".5", "1.", "1e5", "6.8523015e+5",
           "12345678901234567890123", "-9223372036854775809", "18446744073709551615", "1e999999", "0b101",
           "=", "<<x", "81559Mi", "9.0.0", "0000:10:00.0", "GPU-05454e3e", "", "'quoted'", '"dq"', "a: b", "- x",
           "#x", "x #y", "é", "\u2028", "\t", "line\nbreak", "\\", "null\x00"]
_SCALAR = st.one_of(st.sampled_from(_TRICKY), st.text(max_size=12), st.integers(), st.booleans(), st.none(),
                    st.floats(allow_nan=False))
_KEY = st.one_of(st.sampled_from(_TRICKY[:30]), st.text(min_size=1, max_size=8))
_DOC = st.recursive(_SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(_KEY, inner, max_size=4)), max_leaves=12)


def _plain_yaml(value: Any, indent: str = "") -> str:
    """Block YAML writing strings from _TRICKY unquoted where YAML allows it, to exercise implicit typing."""
    if isinstance(value, dict) and value:
        return "".join(f"\n{indent}{_scalar(k)}:{_nested(v, indent)}" for k, v in value.items())
    if isinstance(value, list) and value:
        return "".join(f"\n{indent}-{_nested(v, indent)}" for v in value)
    return " " + _scalar(value)


def _nested(value: Any, indent: str) -> str:
    return _plain_yaml(value, indent + "  ") if isinstance(value, (dict, list)) and value else _plain_yaml(value)


def _scalar(value: Any) -> str:
    if isinstance(value, str) and value in _TRICKY[:34]:
        return value  # plain: YAML decides its type
    if value == {}:
        return "{}"
    if value == []:
        return "[]"
    return json.dumps(value)  # JSON scalars are YAML flow scalars


@settings(max_examples=examples(150))
@given(docs=st.lists(_DOC, min_size=1, max_size=3))
@example(docs=[{"=": None}])
def test_a_cached_parse_equals_the_parse(docs: list[Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    text = "".join(f"---{_plain_yaml(d)}\n" for d in docs)
    data = text.encode()
    try:
        fresh = files.parse_yaml(text, source="in.yaml")
    except InputError:
        return  # a key written twice (two spellings of one value): never cached, see below
    root = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRASIM_CACHE_DIR", str(root))
        mp.setattr(parsecache, "MIN_BYTES", 0)
        first, _ = _parse(data)
        assert _same(first, fresh)
        if _entries(root):
            mp.setattr(files, "_parse", _no_parse)
            second, _ = _parse(data)
            assert _same(second, fresh)
        else:  # only documents with a key that is not a string are kept out
            assert any(_has_other_key(d) for d in fresh)


def _has_other_key(value: Any) -> bool:
    # A plain `=` reads as the string "=", yet YAML 1.1 tags it `value`, not `str`: such a key, too, takes the
    # full constructor, whose documents are never cached (hypothesis found `=: null`).
    if isinstance(value, dict):
        return any(not isinstance(k, str) or k == "=" or _has_other_key(v) for k, v in value.items())
    return isinstance(value, list) and any(_has_other_key(v) for v in value)


def _same(a: Any, b: Any) -> bool:
    """Equal, with types (1 and 1.0 and True differ) and -0.0 distinct from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return math.copysign(1, a) == math.copysign(1, b) and (a == b or (math.isnan(a) and math.isnan(b)))
    return bool(a == b)


def test_the_second_read_comes_from_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: yes}\n"
    first, _ = _parse(data)
    [entry] = _entries(cache)
    assert oct(entry.stat().st_mode & 0o777) == "0o600"
    assert oct(entry.parent.stat().st_mode & 0o777) == "0o700"
    monkeypatch.setattr(files, "_parse", _no_parse)
    second, _ = _parse(data)
    assert second == first == [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                                "spec": {"unschedulable": True}}]


@pytest.mark.parametrize("text", [
    "a: &x [1]\nb: *x\n",  # aliases: shared objects, and the alias budget must be spent on every read
    "1: one\n",  # a key that is not a string
    "<<: {a: 1}\nb: 2\n",  # a merge key: the full constructor
    "a: !!set {x, y}\n",
    "a: !!omap [{x: 1}]\n",
])
def test_what_is_not_plain_data_is_never_cached(cache: Path, text: str) -> None:
    docs, _ = _parse(text.encode())
    assert docs == files.parse_yaml(text, source="in.yaml")
    assert _entries(cache) == []


def test_core_types_come_back_exactly(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "a: !!binary aGVsbG8=\nb: [.inf, -.inf, -0.0, 18446744073709551615, 1e999999, 2024-01-01, ~]\n"
    fresh = files.parse_yaml(text, source="in.yaml")
    _parse(text.encode())
    monkeypatch.setattr(files, "_parse", _no_parse)
    cached, _ = _parse(text.encode())
    assert _same(cached, fresh)
    assert cached == [{"a": b"hello", "b": [math.inf, -math.inf, -0.0, 18446744073709551615, "1e999999",
                                            "2024-01-01", None]}]


@pytest.mark.parametrize("text", ["a: 1\nb: [\n", "a: 1\na: 2\n"])
def test_failed_parses_are_never_cached(cache: Path, text: str) -> None:
    with pytest.raises(InputError):
        _parse(text.encode())
    docs, errors = _parse(text.encode(), keep_going=True)
    assert errors and docs in ([], [None])
    assert _entries(cache) == []


def test_a_damaged_entry_is_parsed_again_and_replaced(cache: Path) -> None:
    data = b"a: 1\n"
    _parse(data)
    [entry] = _entries(cache)
    blob = entry.read_bytes()
    entry.write_bytes(blob[:-1] + bytes([blob[-1] ^ 3]))  # {"a": 1} -> {"a": 2}
    docs, _ = _parse(data)
    assert docs == [{"a": 1}]
    assert entry.read_bytes() == blob


def test_the_key_covers_what_the_parse_depends_on(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _parse(b"a: 1\n")
    monkeypatch.setattr(files, "MAX_DEPTH", 3)  # another depth limit: another entry
    _parse(b"a: 1\n")
    assert len(_entries(cache)) == 2
    assert parsecache.entry_key(b"x", "s1") != parsecache.entry_key(b"x", "s2") != parsecache.entry_key(b"y", "s2")


def test_small_inputs_and_the_off_switch_write_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "cache"
    monkeypatch.setenv("DRASIM_CACHE_DIR", str(root))
    _parse(b"a: 1\n")  # below MIN_BYTES
    monkeypatch.setattr(parsecache, "MIN_BYTES", 0)
    for off in ("off", "", "0"):
        monkeypatch.setenv("DRASIM_CACHE_DIR", off)
        assert parsecache.cache_dir() is None
        _parse(b"a: 1\n")
    assert not root.exists()


def test_store_encodes_nothing_when_the_cache_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRASIM_CACHE_DIR", "off")
    monkeypatch.setattr(msgspec.msgpack, "encode", lambda *args, **kwargs: pytest.fail("encoded with the cache off"))
    parsecache.store("k", [{"a": 1}])


def test_default_location_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DRASIM_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert parsecache.cache_dir() == str(tmp_path / "drasim")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert parsecache.cache_dir() == str(tmp_path / "home" / ".cache" / "drasim")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # the XDG spec: a relative path is ignored
    assert parsecache.cache_dir() == str(tmp_path / "home" / ".cache" / "drasim")
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # no HOME and no passwd entry
    assert parsecache.cache_dir() is None


def test_an_unusable_cache_directory_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("DRASIM_CACHE_DIR", str(blocker))
    monkeypatch.setattr(parsecache, "MIN_BYTES", 0)
    assert _parse(b"a: 1\n")[0] == [{"a": 1}]
    assert blocker.read_text() == "x"


def test_least_recently_used_entries_go_first(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(3):
        _parse(f"a: {i}\n".encode())
        for n, entry in enumerate(_entries(cache)):
            os.utime(entry, (1000 + n, 1000 + n))
    size = _entries(cache)[0].stat().st_size
    _parse(b"a: 0\n")  # a hit: now the most recently used
    monkeypatch.setattr(parsecache, "MAX_TOTAL_BYTES", 2 * size)
    _parse(b"a: 3\n")
    kept = {msgspec.msgpack.decode(e.read_bytes().partition(b"\n")[2])[0]["a"] for e in _entries(cache)}
    assert kept == {0, 3}


def test_lint_reads_the_same_from_the_cache(cache: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    fleet = tmp_path / "fleet"
    made = runner.invoke(cli, ["fleet", "--nodes", "a100-80gb:mig-dynamic:2", "--output-dir", str(fleet)])
    assert made.exit_code == 0, made.output
    runs = [runner.invoke(cli, ["lint", "-f", str(fleet), "-o", "json"]) for _ in range(2)]
    assert len(_entries(cache)) == 3  # deviceclasses, nodes, resourceslices
    assert runs[0].exit_code == runs[1].exit_code
    assert runs[0].output == runs[1].output
    assert yaml.safe_load(runs[0].output) is not None


def test_a_read_only_cache_still_serves(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _parse(b"a: 1\n")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(os, "utime", refuse)
    monkeypatch.setattr(files, "_parse", _no_parse)
    assert _parse(b"a: 1\n")[0] == [{"a": 1}]


def test_entries_of_another_user_are_not_trusted(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _parse(b"a: 1\n")
    monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
    calls: list[bytes] = []
    real = files._parse

    def counted(text: str, **kwargs: Any) -> Any:
        calls.append(text.encode())
        return real(text, **kwargs)

    monkeypatch.setattr(files, "_parse", counted)
    assert _parse(b"a: 1\n")[0] == [{"a": 1}]
    assert calls == [b"a: 1\n"]
