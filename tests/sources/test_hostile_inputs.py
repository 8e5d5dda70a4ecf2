"""The input guards every reading path shares (issues 11 and 15): each test builds its hostile input itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.cli.main import cli
from drasim.errors import DrasimError, InputError
from drasim.sources import files
from drasim.sources.dump import read_dump
from drasim.sources.files import load_bytes, load_paths, parse_yaml
from drasim.sources.scenario import load_scenario
from hypothesis_budget import examples

NODE = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"


def drasim(*args: str, input: str | None = None) -> tuple[int, str]:
    """Run the CLI in-process as `main()` does: a DrasimError becomes its message and exit code."""
    result = CliRunner().invoke(cli, list(args), input=input)
    exc = result.exception
    if isinstance(exc, DrasimError):
        return exc.exit_code, f"{result.output}error: {exc}\n"
    if exc is not None and not isinstance(exc, SystemExit):
        raise exc
    return result.exit_code, result.output


def error_of(data: bytes, source: str = "in.yaml") -> InputError:
    with pytest.raises(InputError) as info:
        load_bytes(data, source=source)
    return info.value


# --- numbers ------------------------------------------------------------------------------------------------

def test_ten_thousand_digit_integer_is_read_like_go_yaml() -> None:
    # Go's YAML reads an integer past float64 as a string: fine as a label value, an error where a number goes.
    digits = "9" * 10_000
    [obj] = load_bytes(f"{NODE}  labels:\n    big: {digits}\n".encode(), source="n.yaml").objects
    assert obj.metadata.labels["big"] == digits
    pod = f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  priority: {digits}\n  containers: []\n"
    err = error_of(pod.encode(), "p.yaml")
    assert str(err).startswith("p.yaml: Pod/p: spec.priority: expected int")


def test_integers_beyond_64_bits_become_floats_as_in_go() -> None:
    assert parse_yaml("a: 99999999999999999999\nb: 18446744073709551615\nc: -9223372036854775808\n",
                      source="x") == [{"a": 1e20, "b": 2**64 - 1, "c": -(2**63)}]
    assert parse_yaml("a: 1e999999\nb: .inf\nc: 0x" + "f" * 500 + "\n", source="x") == [
        {"a": "1e999999", "b": float("inf"), "c": "0x" + "f" * 500}]


def test_ten_thousand_digits_through_every_manifest_command(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  priority: {'9' * 10_000}\n")
    for args in (["validate"], ["lint"], ["simulate"], ["explain", "pod", "default/p"]):
        code, output = drasim(*args, "-f", str(path))
        assert code == 2 and "Pod/p: spec.priority: expected int" in output, (args, output)


# --- nesting ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_flow_yaml_nested_deeply_is_refused_with_its_line(depth: int) -> None:
    err = error_of(("a:\n  b: " + "[" * depth + "]" * depth + "\n").encode())
    assert err.message == f"invalid YAML (line 2, column {4 + files.MAX_DEPTH}): nested more than " \
                          f"{files.MAX_DEPTH} levels deep"


@settings(max_examples=examples(60))
@given(depth=st.integers(files.MAX_DEPTH + 1, 2_500), gap=st.sampled_from(["", " ", "\n  "]),
       opener=st.sampled_from(["[", "{a: ", "[x, "]), prefix=st.sampled_from(["", "é: ü\n", "k: v\n" * 3]))
def test_flow_nesting_is_refused_where_it_passes_the_limit(depth: int, gap: str, opener: str, prefix: str) -> None:
    # Whatever the parser's own limit (libyaml 0.2.6 stops at 1,000 open flow collections, reading ahead of
    # its events), drasim's guard names the collection 201 levels down: the document's mapping, then these.
    closer = {"[": "]", "{a: ": "}", "[x, ": "]"}[opener]
    text = prefix + "x: " + (opener + gap) * depth + "1" + closer * depth + "\n"
    err = error_of(text.encode())
    where = text.index("x: ") + 3 + (len(opener) + len(gap)) * (files.MAX_DEPTH - 1)
    line = text.count("\n", 0, where) + 1
    column = where - (text.rfind("\n", 0, where) + 1) + 1
    assert err.message == f"invalid YAML (line {line}, column {column}): nested more than {files.MAX_DEPTH} " \
                          "levels deep"


class _ParserWithALimit(files._Loader):  # type: ignore[misc,name-defined]
    """A parser that stops at 250 open `[` before giving any event, as a stricter libyaml might."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.limit_at = text.find("[" * 250)

    def check_event(self, *choices: object) -> bool:
        if self.limit_at >= 0:
            at = self.limit_at + 249
            mark = yaml.Mark("<text>", at, 0, at, None, None)
            raise yaml.scanner.ScannerError("while increasing flow level", mark, "exceeded maximum nesting depth",
                                            mark)
        return bool(super().check_event(*choices))


def test_a_parser_limit_below_the_nesting_never_speaks_for_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "_Loader", _ParserWithALimit)
    err = error_of(("x: " + "[" * 300 + "]" * 300).encode())
    assert err.message == f"invalid YAML (line 1, column {4 + files.MAX_DEPTH - 1}): nested more than " \
                          f"{files.MAX_DEPTH} levels deep"
    # An ordinary syntax error in a text deep enough to be counted is still the parser's.
    err = error_of(("".join(f"y{i}: [1]\n" for i in range(60)) + "x: " + "[a, " * 150 + "b: : c").encode())
    assert err.message.startswith("invalid YAML (line 61, ") and "nested" not in err.message


def test_empty_flow_collections_do_not_cost_a_second_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # kubectl's output is full of `resources: {}`; only nesting that could pass the limit is counted.
    many_empty = "items:\n" + "- resources: {}\n  volumes: []\n  f: {g: {}}\n" * 150
    monkeypatch.setattr(files, "_Loader", None)  # the event pass would fail
    files._check_depth(many_empty, source="x")
    monkeypatch.undo()
    deep = "b: " + "[" * (files.MAX_DEPTH - 2) + "{}" + "]" * (files.MAX_DEPTH - 2) + "\n"
    assert parse_yaml(many_empty + deep, source="x")  # the document's mapping and 199 more: the limit itself
    deeper = many_empty + "b: " + "[" * files.MAX_DEPTH + "{}" + "]" * files.MAX_DEPTH + "\n"
    assert "nested more than" in error_of(deeper.encode()).message


def test_block_and_compact_nesting_is_refused() -> None:
    block = "a:\n" + "".join(" " * i + "-\n" for i in range(0, 2 * 1_000, 2))
    assert "nested more than" in error_of(block.encode()).message
    compact = "a:\n" + "- " * 1_000 + "x\n"
    assert "nested more than" in error_of(compact.encode()).message
    assert parse_yaml("a:\n" + "- " * 50 + "x\n", source="x")  # ordinary nesting is fine


@pytest.mark.parametrize("depth", [files.MAX_DEPTH + 1, 300, 1_000, 100_000])
def test_deep_json_is_refused_with_its_line(depth: int) -> None:
    # msgspec accepted 300 levels and overflowed the stack near 1,000: the limit is drasim's, as for YAML.
    data = b'{"a":\n  ' + b"[" * depth + b"]" * depth + b"}"
    expected = f"invalid JSON (line 2, column {2 + files.MAX_DEPTH}): nested more than {files.MAX_DEPTH} levels deep"
    assert error_of(data, "deep.json").message == expected
    assert error_of(data, "stdin").message == expected  # sniffed as JSON


def _nested_json(depth: int, strings: list[str], kinds: list[bool], gap: str) -> tuple[str, int]:
    """Arrays and objects `depth` levels deep, each with a string beside its child; and the offset of the
    opener `MAX_DEPTH + 1` levels down (-1 when there is none)."""
    text, closers, where = "", [], -1
    for i in range(depth):
        if i == files.MAX_DEPTH:
            where = len(text)
        quoted = json.dumps(strings[i % len(strings)])
        text += ("[" + quoted + "," if kinds[i % len(kinds)] else "{" + quoted + ":") + gap
        closers.append("]" if kinds[i % len(kinds)] else "}")
    return text + "0" + "".join(reversed(closers)), where


@given(depth=st.integers(files.MAX_DEPTH - 20, files.MAX_DEPTH + 40),
       strings=st.lists(st.text(alphabet='[]{}"\\ a', max_size=6), min_size=1, max_size=5),
       kinds=st.lists(st.booleans(), min_size=1, max_size=4), gap=st.sampled_from(["", " ", "\n "]))
@settings(max_examples=examples(40), deadline=None)
def test_json_depth_ignores_brackets_in_strings(depth: int, strings: list[str], kinds: list[bool], gap: str) -> None:
    text, where = _nested_json(depth, strings, kinds, gap)
    if where < 0:
        files.check_json_depth(text.encode(), source="x.json")  # brackets and escaped quotes in strings: no depth
        return
    line = text.count("\n", 0, where) + 1
    column = where - (text.rfind("\n", 0, where) + 1) + 1
    with pytest.raises(InputError) as info:
        files.check_json_depth(text.encode(), source="x.json")
    assert info.value.message == f"invalid JSON (line {line}, column {column}): nested more than " \
                                 f"{files.MAX_DEPTH} levels deep"


def test_brackets_in_yaml_quotes_are_no_json_nesting() -> None:
    # Starts like JSON, but it is YAML flow style: single-quoted brackets and comments nest nothing.
    text = "{apiVersion: v1, kind: Node, # " + "[" * 300 + "\n metadata: {name: n1, annotations: {a: '" + \
        "{" * 300 + "'}}}\n"
    [node] = load_bytes(text.encode(), source="-").objects
    assert node.metadata.annotations["a"] == "{" * 300


def test_deep_json_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_bytes(b"[" * 300 + b"]" * 300)
    code, output = drasim("validate", "-f", str(path))
    assert code == 2 and output.endswith(f"deep.json: invalid JSON (line 1, column {files.MAX_DEPTH + 1}): "
                                         f"nested more than {files.MAX_DEPTH} levels deep\n")


def test_deep_cluster_info_in_a_dump(tmp_path: Path) -> None:
    (tmp_path / "cluster-info.yaml").write_text("kind: ClusterInfo\nx: " + "[" * 1_000 + "]" * 1_000 + "\n")
    with pytest.raises(InputError, match=r"cluster-info.yaml: invalid YAML \(line 2, .*nested more than"):
        read_dump(str(tmp_path))
    code, output = drasim("doctor", "--from-dump", str(tmp_path))
    assert code == 2 and "nested more than" in output


# --- aliases ------------------------------------------------------------------------------------------------

def small_bomb() -> str:
    """Under 730 bytes expanding to ~350,000 nodes: under the limit alone, not a hundred times."""
    text = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for name, prev in (("b", "a"), ("c", "b"), ("d", "c")):
        text += f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    return text + "e: [" + ", ".join(["*d"] * 35) + "]\n"


def test_alias_expansion_is_capped_per_input_not_per_document() -> None:
    bomb = small_bomb()
    assert len(bomb) < 730
    parse_yaml(bomb, source="one")  # one document is fine
    err = error_of((bomb * 100).encode())
    assert err.message.startswith("YAML aliases expand to more than 1,000,000 nodes in this input (reached in "
                                  "document 3")
    with pytest.raises(InputError, match="more than 1,000,000 nodes in this input"):
        load_bytes((bomb * 100).encode(), source="bombs.json")  # not JSON: read as YAML, same guard


def test_alias_budget_is_shared_by_the_files_of_one_input(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.yaml").write_text(small_bomb())
    with pytest.raises(InputError, match="more than 1,000,000 nodes in this input"):
        load_paths([str(tmp_path)])


# --- duplicate keys and encodings ---------------------------------------------------------------------------

def test_duplicate_keys_name_both_lines() -> None:
    err = error_of(b"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n", "dup.yaml")
    assert str(err) == 'dup.yaml: invalid YAML (line 5, column 3): key "name" already set in map (line 4)'
    merged = b"base: &b {x: 1}\nobj:\n  <<: *b\n  y: 1\n  y: 2\n"  # the full constructor's path
    assert 'key "y" already set in map (line 4)' in error_of(merged).message
    assert parse_yaml("base: &b {x: 1}\nobj:\n  <<: *b\n  x: 2\n", source="x")[0]["obj"] == {"x": 2}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8-sig"])
def test_yaml_in_the_encodings_yaml_allows(encoding: str) -> None:
    [obj] = load_bytes(NODE.encode(encoding), source="n.yaml").objects
    assert obj.metadata.name == "n1"


def test_bad_encodings_and_control_characters_name_the_place() -> None:
    assert error_of(b"a: \xff\n").message == "not UTF-8 text (invalid byte at offset 3)"
    assert error_of(b"\xff\xfe" + "a: \ud800".encode("utf-16-le", "surrogatepass")).message.startswith(
        "not UTF-16 text")
    assert error_of(b"apiVersion: v1\nkind: \x00\n").message == (
        "invalid YAML (line 2, column 7): character #x0000 is not allowed")


# --- what a path may be -------------------------------------------------------------------------------------

def test_directory_entries_that_are_not_regular_files_are_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "node.yaml").write_text(NODE)
    os.symlink("/dev/zero", tmp_path / "zero.yaml")
    os.mkfifo(tmp_path / "fifo.yaml")
    loaded = load_paths([str(tmp_path)])
    assert [o.metadata.name for o in loaded.objects] == ["n1"]
    assert loaded.warnings == [
        f"{tmp_path}/fifo.yaml: skipped: a FIFO, not a regular file",
        f"{tmp_path}/zero.yaml: skipped: a character device (through a symbolic link), not a regular file",
    ]


def test_dump_directories_skip_them_too(tmp_path: Path) -> None:
    (tmp_path / "nodes.yaml").write_text(NODE)
    os.mkfifo(tmp_path / "pods.yaml")
    snapshot = read_dump(str(tmp_path))
    assert [o.metadata.name for o in snapshot.objects] == ["n1"]
    assert f"{tmp_path}/pods.yaml: skipped: a FIFO, not a regular file" in snapshot.warnings


def test_simulate_and_allocate_skip_them(tmp_path: Path) -> None:
    (tmp_path / "node.yaml").write_text(NODE)
    os.mkfifo(tmp_path / "fifo.yaml")
    code, output = drasim("simulate", "-f", str(tmp_path))
    assert code == 0 and "fifo.yaml: skipped: a FIFO" in output
    code, output = drasim("allocate", str(tmp_path))
    assert "fifo.yaml: skipped: a FIFO" in output


def test_size_read_from_one_file_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1024 * 1024)
    with pytest.raises(InputError, match=r"^/dev/zero: larger than 1 MiB: drasim reads at most that much"):
        load_paths(["/dev/zero"])
    big = tmp_path / "big.yaml"
    big.write_text(NODE + "#" * (1024 * 1024))
    with pytest.raises(InputError, match="larger than 1 MiB"):
        load_paths([str(big)])
    with pytest.raises(InputError, match="larger than 1 MiB"):
        load_scenario(str(big))
    code, output = drasim("validate", "-f", "-", input=NODE + "#" * (1024 * 1024))
    assert code == 2 and "-: larger than 1 MiB" in output


def test_a_directory_named_as_a_scenario_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_scenario(str(tmp_path))


@pytest.mark.parametrize("data", [b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a\xff"}}',
                                  b'[{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "\xfe"}}]'])
def test_json_with_invalid_utf8_is_one_message_under_every_msgspec(data: bytes) -> None:
    # msgspec 0.19 (the lower bound) raised UnicodeDecodeError here, newer releases a DecodeError: one answer.
    with pytest.raises(InputError) as info:
        load_bytes(data, source="in.json", json=True)
    assert info.value.message == "invalid JSON: Invalid UTF-8 encoded string"
    # Sniffed, it is then read as YAML, which names the byte (the one byte above ASCII here).
    with pytest.raises(InputError) as info:
        load_bytes(data, source="in.json")
    assert info.value.message == f"not UTF-8 text (invalid byte at offset {data.index(bytes([max(data)]))})"
