"""The fast YAML reader gives the full loader's documents, or declines: on every YAML input of the suite and
on generated documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.errors import InputError
from drasim.sources import files, yamlfast, yamlscalars
from hypothesis_budget import examples

ROOT = Path(__file__).resolve().parent.parent.parent
INPUTS = sorted(p for p in [*ROOT.joinpath("tests").rglob("*.y*ml"), *ROOT.joinpath("src").rglob("*.y*ml")]
                if p.suffix in (".yaml", ".yml"))


def _full(text: str) -> Any:
    """What the full loader (no fast reader) makes of `text`: its documents, or its error message."""
    saved = yamlfast.ryml
    yamlfast.ryml = None
    try:
        return files.parse_yaml(text, source="x")
    except InputError as exc:
        return f"error: {exc}"
    finally:
        yamlfast.ryml = saved


def _fast(text: str) -> Any:
    return yamlfast.read_documents(text, yamlscalars.plain_scalar, yaml.reader.Reader.NON_PRINTABLE)


def _same(text: str) -> bool:
    """The fast reader's documents equal the full loader's (types included), or it declined."""
    fast = _fast(text)
    if fast is None:
        return False
    assert repr(fast) == repr(_full(text)), text
    return True


def test_rapidyaml_is_installed() -> None:
    assert yamlfast.available()


def test_every_yaml_input_of_the_suite_reads_the_same() -> None:
    assert len(INPUTS) > 500
    read = 0
    for path in INPUTS:
        try:
            text = files.decode_text(path.read_bytes(), source=str(path))
        except InputError:
            continue
        read += _same(text)
    assert read > len(INPUTS) // 2  # most real manifests take the fast path


@pytest.mark.parametrize("text", [
    "", "# only a comment\n", "---\n", "a: 1\n---\n", "---\n---\n", "- a\n-\n- b\n", "hello\n",
    "a: 1\n...\n---\nb: 2\n", "a: |\n  x\n  y\n\n\nb: >-\n  f\n  g\n\n  h\n", "a: 'it''s\n  two'\n",
    "a: plain\n  multi\n\n  line\n", "key : val\n", "a: 1\r\nb: 2\r\n", "a: {b: 1, c: [x, y]}\n",
    "- - a\n  - b\n- c\n", "{a: 1}\n", "'a': 1\n\"b\": 2\n", "a: |+\n  x\n\n", "a: >\n  x\n   y\n  z\n",
    "a: 1 # c\nb: 'x' #c\n", "a: x#y\n", "a:\n- 1\n- 2\n", "a: 12\nb: -3\nc: 1.5\nd: 1e3\ne: 1.0e+3\nf: true\n"
    "g: false\nh: null\ni:\nj: 123456789012345678901234567890\nk: '0x1F'\nl: \"yes\"\nm: 2001-12-14\n",
    "a: \"\\u00e9\\x41 \\\" \\\\ \"\nb: é ü 日本\n", "x: 0000:60:00.0\ny: 9.0.0\nz: 81559Mi\nw: 0o17\n",
    "a: [0.0, -1.5, 1E5, 1.5E+3, 1.5e-3, 99999999999999999999, -9223372036854775809, 0e0, -0.0, 12e+3, 1e-3]\n",
])
def test_plain_common_cases_take_the_fast_path(text: str) -> None:
    assert _same(text)


@pytest.mark.parametrize("text", [
    "a: yes\n", "a: No\n", "a: ~\n", "a: Null\n", "a: True\n", "a: 0x1F\n", "a: 017\n", "a: 1_000\n",
    "a: 1:20\n", "a: +12\n", "a: .inf\n", "a: -.inf\n", "a: .nan\n", "a: 1.\n", "a: 0b101\n", "a: =\n",
    "1: a\n", "true: a\n", "null: a\n", "yes: a\n", "[yes, 1]\n", "{a: on}\n", "- off\n", "a: !!str 1\n",
    "a: &x 1\nb: *x\n", "<<: {a: 1}\n", "? a\n: b\n", "%YAML 1.1\n---\na: 1\n", "a:\n\tb: 1\n", "a: 1\na: 2\n",
    "a: [1, 2\n", "a: b: c\n", "a: - b\n", "[a, b]: c\n", "a: 'x'y\n", "a: \"\\t\\x01\"\n", "a: \x01\n",
    "a: x\x85y\n", "a: 1\rb: 2\n", "12:30: a\n", "a: 190:20:30.15\n", "a: [x-\"q, yes]\n", "a: [x'q, 0x1]\n",
    "a: [it is \"q, yes]\n", "a: [x- 'q, ~]\n", "|\n---\nk: 1\n", ">\n#c x\n", "--- |\n  x\n",
    "\n  \n  |\n #c x\n", "{\n  null, k}\n", "017\"x-' 0x1,\": yes\n", "a, \"b: yes\n",
    "[q, x \"a b\n- 'off,   yes]\n", ".51e3\n", "a: -.5\n", "- #c >\n  !t x\n", "a: # b: |\n  yes\n",
])
def test_what_may_read_differently_is_declined(text: str) -> None:
    assert _fast(text) is None


_ESCAPES = [r"\x80", r"\xe9", r"\u00e9", r"\U0001F600", r"\N", r"\_", r"\L", r"\P", r"\e", r"\a", r"\b", r"\v",
            r"\/", r"\ ", r"\t", r"\n", r"\"", r"\\", "a\\\n  b", "a\n  b", r"\ud800\udc00", r"\ud800", r"\u0000",
            r"\x9f", r"\ufeff"]


@pytest.mark.parametrize("escape", _ESCAPES)
def test_double_quoted_escapes_read_the_same_or_are_declined(escape: str) -> None:
    _same(f'a: "{escape}"\n')


def test_escaped_surrogates_are_declined() -> None:
    assert _fast('a: "\\ud800\\udc00"\n') is None
    assert _fast("a: \ud800\n") is None


def test_declined_errors_keep_the_full_loaders_line_and_column() -> None:
    with pytest.raises(InputError, match=r"line 2, column 1\): key \"a\" already set in map \(line 1\)"):
        files.parse_yaml("a: 1\na: 2\n", source="x")
    with pytest.raises(InputError, match=r"invalid YAML \(line 1, column 5\): mapping values are not allowed"):
        files.parse_yaml("a: b: c\n", source="x")


def test_a_parse_error_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    # libyaml reads a flow collection as a key; rapidyaml refuses it (printing to descriptor 2 first).
    assert _fast("[a, b]: c\n") is None
    assert capfd.readouterr() == ("", "")
    with pytest.raises(InputError, match=r"line 1, column 1\): while constructing a mapping: found unhashable key"):
        files.parse_yaml("[a, b]: c\n", source="x")


def test_without_rapidyaml_the_full_loader_reads_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlfast, "ryml", None)
    assert not yamlfast.available()
    assert files.parse_yaml("a: yes\nb: [1, x]\n", source="x") == [{"a": True, "b": [1, "x"]}]


_TRICKY = ["0x1F", "0o17", "017", "1_000", "+.inf", "-.inf", ".nan", "~", "null", "Null", "NULL", "Yes", "yes",
           "no", "on", "OFF", "true", "True", "false", "2001-12-14", "2001-12-14T21:59:43.10-05:00", "1:20",
           "190:20:30.15", "12", "-3", "+12", "0", "-0", "1.5", "1.", "1e3", "1.0e+3", ".5", "00.5", "0b101",
           "123456789012345678901234567890", "9223372036854775808", "18446744073709551616", "1e999999", "=", "<<",
           "é", "日本", "a b", "x-y", "0000:60:00.0", "0000:10:00.0", "9.0.0", "81559Mi", "-", "a:b", "NaN",
           "Infinity", "12:30", "0_1", "1__2", ""]
_KEYS = st.sampled_from(["a", "b", "name", "1", "yes", "true", "null", "~", "x y", "0x1F", "12:30", "é"])
_SCALARS = st.one_of(st.sampled_from(_TRICKY), st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)),
                                                       max_size=8))


@st.composite
def _scalar_text(draw: Any, value: str) -> str:
    style = draw(st.sampled_from(["plain", "single", "double"]))
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    if style == "double":
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return value


def _render(draw: Any, value: Any, indent: int) -> str:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return " {}\n"
        lines = "".join(f"{pad}{draw(_scalar_text(k))}:{_render(draw, v, indent + 2)}" for k, v in value.items())
        return "\n" + lines
    if isinstance(value, list):
        if not value:
            return " []\n"
        if draw(st.booleans()):  # flow style
            return " [" + ", ".join(draw(_scalar_text(v)) if isinstance(v, str) else "[]" for v in value) + "]\n"
        return "\n" + "".join(f"{pad}-{_render(draw, v, indent + 2)}" for v in value)
    return f" {draw(_scalar_text(value))}\n"


_TREES = st.recursive(_SCALARS, lambda children: st.one_of(st.lists(children, max_size=4),
                                                           st.dictionaries(_KEYS, children, max_size=4)),
                      max_leaves=12)


@given(st.lists(st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12), min_size=1,
                max_size=6), st.booleans())
def test_quoted_strings_read_the_same(values: list[str], single: bool) -> None:
    quoted = ["'" + v.replace("'", "''") + "'" if single else json.dumps(v, ensure_ascii=False) for v in values]
    _same("".join(f"k{i}: {q}\n" for i, q in enumerate(quoted)))


@given(st.data(), st.dictionaries(_KEYS, _TREES, min_size=1, max_size=4), st.integers(1, 3))
def test_generated_documents_read_the_same_or_are_declined(data: st.DataObject, doc: dict[str, Any],
                                                           count: int) -> None:
    text = "---\n".join(_render(data.draw, doc, 0).lstrip("\n") for _ in range(count))
    _same(text)


_SEEDS = [text for text in (files.decode_text(p.read_bytes(), source=str(p)) for p in INPUTS
                            if "realworld" in p.parts or "conformance" in p.parts) if len(text) < 4000][:200]
_EDITS = st.lists(st.tuples(st.sampled_from(["insert", "delete", "indent", "repeat"]), st.floats(0, 1),
                            st.sampled_from(list(" :-[]{},#'\"\n?|>!&*~01yn.\\"))), min_size=1, max_size=3)


@settings(max_examples=examples(300))
@given(st.sampled_from(_SEEDS), _EDITS)
def test_damaged_manifests_read_the_same_or_are_declined(seed: str, edits: list[tuple[str, float, str]]) -> None:
    """rapidyaml reads some malformed texts libyaml refuses (and a few valid ones differently): an edit or three
    of a real manifest, which the full loader reads or refuses, must read the same or be declined."""
    text = seed
    for op, where, char in edits:
        at = int(where * len(text))
        lines = text.split("\n")
        line = min(int(where * len(lines)), len(lines) - 1)
        if op == "insert":
            text = text[:at] + char + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + 1:]
        elif op == "indent":
            lines[line] = " " + lines[line]
            text = "\n".join(lines)
        else:
            lines.insert(line, lines[line])
            text = "\n".join(lines)
    _same(text)


def _json_of(emit: Any, data: bytes) -> Any:
    """The stream flag and JSON value an emitter gives for a text the fast reader would parse."""
    if yamlfast._unusual(data, yamlscalars.plain_scalar) or not yamlfast._libyaml_accepts(data):
        return "declined before parsing"
    try:
        emitted = emit(data)
    except (yamlfast.ryml.ExceptionBasic, yamlfast._Declined) as exc:  # either path may refuse a text; both must
        return f"refused: {type(exc).__name__}"
    return emitted.stream, json.loads(bytes(emitted.json))


# Mostly what the fast reader parses (the tricky scalars above are mostly declined before parsing).
_PLAIN_TREES = st.recursive(st.one_of(st.sampled_from(["x", "a b", "9.0.0", "81559Mi", "12", "-1.5", "", "é", "|x"]),
                                      st.text("ab -:#'\"\\\n", max_size=6)),
                            lambda children: st.one_of(st.lists(children, max_size=3),
                                                       st.dictionaries(st.sampled_from(["a", "b", "c d"]), children,
                                                                       max_size=3)), max_leaves=8)


@settings(max_examples=examples(200))
@given(st.data(), st.lists(st.dictionaries(st.sampled_from(["a", "b", "name"]), _PLAIN_TREES, max_size=3),
                           min_size=1, max_size=5),
       st.sampled_from(["", "# head\n", "---\n", "--- # c\n", "\n"]), st.integers(1, 200))
def test_a_stream_read_in_pieces_gives_the_whole_streams_documents(data: st.DataObject, docs: list[dict[str, Any]],
                                                                  head: str, piece: int) -> None:
    """Pieces of whole documents (any size, so every `---` may start one) emit the whole stream's JSON."""
    markers = st.sampled_from(["---\n", "--- \n", "---\r\n", "--- # c\n", "---\n# c\n\n", "---x: 1\n"])
    text = head + "".join((data.draw(markers) if i else "") + _render(data.draw, doc, 0).lstrip("\n")
                          for i, doc in enumerate(docs))
    encoded = text.encode()
    whole = _json_of(yamlfast._emit_whole, encoded)
    assert _json_of(lambda d: yamlfast._emit_pieces(d, piece), encoded) == whole, text


@pytest.mark.parametrize("text", ["", "# c\n", "---\n", "---\n---\n", "a: 1\n---\nb: 2\n", "---\na: 1\n---\n",
                                  "hello\n", "- 1\n", "---x\n", "a: 1\n---x: 2\n", "---\n--- |\n  x\n",
                                  "a: 1\n---\n]\n", "--- {a: 1}\n--- [2]\n", "a: |+\n  x\n\n---\nb: 1\n",
                                  "a: >-\n  x\n  y\n\n\n---\nb: |\n  z\n", "a: \"x\n  y\"\n---\nb: p\n  q\n\n---\n"])
@pytest.mark.parametrize("piece", [1, 3, 1000])
def test_pieces_and_whole_agree_on_edge_texts(text: str, piece: int) -> None:
    data = text.encode()
    assert _json_of(lambda d: yamlfast._emit_pieces(d, piece), data) == _json_of(yamlfast._emit_whole, data)


def test_small_pieces_read_the_suites_streams_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlfast, "_PIECE_BYTES", 1)  # every document its own piece
    streams = [t for t in (p.read_text("utf-8", "replace") for p in INPUTS) if "\n---" in t]
    assert len(streams) > 50
    assert sum(_same(text) for text in streams) > len(streams) // 2


@pytest.mark.parametrize(("text", "ends"), [("...\n", True), ("a: 1\n...\nb: 2\n", True), ("a: 1\n...", True),
                                            ("a: 1\n... # c\n", True), ("a: ...\n", False), ("a: 1\n....\n", False),
                                            ("a:\n  ...\n", False), ("", False), ("a: 1\r\n...\r\n", True)])
def test_a_document_end_line_is_found(text: str, ends: bool) -> None:
    assert yamlfast._has_document_end(text.encode()) is ends


_SHAPE_INSERTS = st.sampled_from([*" :-[]{},#'\"\n?|>!&*~%@`.\\aGf7",
    "---\n", "\n---\n", "\n--- ", "\n...\n", "|2", ">-1", "|0", "&a1 ", "*a1", "!t%4g ", "!t%4F ", "!e!x ", "\\x4g",
    "\\n", "\\q", "\n%YAML 2.0\n", "\n%TAG !e! tag:x,2000:\n", "- ", "  ", "\"a\n---\nb\""])


_SHAPE_SEEDS = [*_SEEDS[:50], 'a: "x\\ny \\x41"\nb: |2\n   z\n', "c: >-1\n x\n", "d: &a1 [*a1, !t%41 x]\n"]


@settings(max_examples=examples(300))
@given(st.lists(st.sampled_from(_SHAPE_SEEDS), min_size=1, max_size=4),
       st.lists(st.tuples(st.booleans(), st.floats(0, 1), _SHAPE_INSERTS), max_size=4))
def test_distinct_document_shapes_keep_libyamls_verdict(seeds: list[str], edits: list[tuple[bool, float, str]]) -> None:
    """libyaml's verdict on a stream's distinct document shapes is its verdict on the stream."""
    text = "---\n".join(seeds + seeds[:1])  # a document twice: its shape is parsed once
    for insert, where, chars in edits:
        at = int(where * len(text))
        text = text[:at] + chars + text[at:] if insert else text[:at] + text[at + len(chars):]
    data = text.encode()
    assert yamlfast._libyaml_accepts(data) is yamlfast._libyaml_parses(data), text


@pytest.mark.parametrize("text", ["a: b\n---\na: c\n---\na: [\n", "a: 1\n---\n]\n",
                                  "x: &a1 1\ny: *a1\n---\nz: !t%4g 1\n",
                                  "a: |1\n  x\n---\na: |0\n  x\n", "a: |2\n   x\n", "a: \"\\x41\\n\"\n",
                                  "%YAML 1.1\n---\na: 1\n", "%YAML 2.0\n---\na: 1\n", "a: \"x\n---\ny\"\n",
                                  "- a\n---\n- b\n---\n  - c\n", "k: 1\n--- # c\nk: 2\n...\n"])
def test_shape_edge_texts_keep_libyamls_verdict(text: str) -> None:
    data = text.encode()
    assert yamlfast._libyaml_accepts(data) is yamlfast._libyaml_parses(data)


def test_a_fleets_slices_are_parsed_as_a_few_shapes() -> None:
    slice_text = "---\nkind: ResourceSlice\nmetadata: {name: node-%d-gpu}\nspec: {uuid: GPU-%08x, pool: {name: n%d}}\n"
    data = "".join(slice_text % (i, i * 2654435761 % (1 << 32), i) for i in range(1000)).encode()
    assert yamlfast._shape_keeps_verdict(data)
    assert len(yamlfast.distinct_shapes(data)) < len(data) // 100
    assert yamlfast._libyaml_accepts(data) and not yamlfast._libyaml_accepts(data + b"- x\n")


@settings(max_examples=examples(200))
@given(st.lists(st.lists(st.tuples(st.text(" \t?:-", min_size=190, max_size=210),
                                   st.sampled_from(["a", "9", "", "#", "\n...", "\n... #", "\n...a"])),
                         max_size=3), min_size=1, max_size=4),
       st.sampled_from(["---\n", "--- \n", "\n"]), st.booleans())
def test_distinct_shapes_hold_every_deep_indentation(docs: list[list[tuple[str, str]]], marker: str,
                                                    newline_at_end: bool) -> None:
    """The depth guard searches the distinct shapes for a line indented 200 deep, and the reader for a `...`
    line: found there iff in the text."""
    text = marker.join("".join(f"{prefix}{rest}\n" for prefix, rest in doc) + "k: v\n" for doc in docs * 2)
    data = (text if newline_at_end else text.rstrip("\n")).encode()
    deep = files._DEEP_PREFIX_UTF8
    shapes = yamlfast.distinct_shapes(data)
    assert (deep.search(shapes) is None) is (deep.search(data) is None)
    assert yamlfast._has_document_end(shapes) is yamlfast._has_document_end(data)
