"""The fast YAML writer gives exactly PyYAML's bytes for any plain data."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.yamlemit import dump_all

_Dumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Strings that stress quoting: YAML indicators, booleans, numbers, timestamps, spaces, newlines, Unicode.
_TRICKY = st.sampled_from(["", "yes", "No", "ON", "null", "~", "1", "1.0", "0x1f", "1e3", ".inf", "12:30",
                           "2024-01-01", "0000:10:00.0", "a: b", "a #b", "- a", "-a", "a:", ":a", "'q'", '"q"',
                           "  a", "a ", "a\nb", "é", "\t", "<<", "=", "---", "...", "!t", "&a", "*a", "%", "@",
                           "`", "{", "}", "[", "]", ",", "?", "|", ">", "x" * 130, "9.0.0", "gpu-0", "a/b.c"])
_TEXT = st.one_of(_TRICKY, st.text(max_size=8),
                  st.text(alphabet="abcXYZ019_./-", min_size=1, max_size=8).map(lambda s: "k" + s))
_SCALAR = st.one_of(_TEXT, st.integers(), st.booleans(), st.none())
_DATA = st.recursive(_SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(_TEXT, inner, max_size=4)), max_leaves=12)


def _pyyaml(docs: list[Any]) -> str:
    return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True,
                         width=1 << 16)


_RELAXED = settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)


@_RELAXED
@given(st.lists(st.one_of(st.dictionaries(_TEXT, _DATA, min_size=1, max_size=4), _DATA), max_size=3))
def test_same_bytes_as_pyyaml(docs: list[Any]) -> None:
    assert dump_all(docs) == _pyyaml(docs)


def test_layout() -> None:
    doc = {"a": 1, "b": [{"x": [1, [2, 3], []], "y": {}}], "c": {"d": None, "e": True, "f": "yes"}}
    assert dump_all([doc, {"z": "0000:10:00.0"}]) == (
        "a: 1\nb:\n- x:\n  - 1\n  - - 2\n    - 3\n  - []\n  y: {}\nc:\n  d: null\n  e: true\n  f: 'yes'\n"
        "---\nz: '0000:10:00.0'\n")


_WORD = st.text(alphabet="aZ9_./-:#'!\"{", min_size=1, max_size=3)


@_RELAXED
@given(st.lists(_WORD, min_size=1, max_size=4).map(" ".join).map(lambda s: "m" + s), st.uuids())
def test_sentences_and_uuids_are_styled_as_pyyaml_styles_them(sentence: str, uuid: Any) -> None:
    # The writer's own plain rules for event messages and UIDs (no PyYAML call per string) must agree with
    # PyYAML, here on words made of indicator characters too, and on UUIDs in every digit/letter mix.
    digits = str(uuid).translate(str.maketrans("abcdef", "123456"))
    for text in (sentence, str(uuid), digits):
        assert dump_all([{"k": text}, {"k": [text]}]) == _pyyaml([{"k": text}, {"k": [text]}])


_PLAIN_WORD = st.text(alphabet="aZ9_./-", min_size=1, max_size=3)


@_RELAXED
@given(st.lists(st.tuples(st.sampled_from([" ", ": "]), _PLAIN_WORD), min_size=1, max_size=4),
       st.sampled_from(["m", "Created pod", "k: x"]))
def test_words_joined_by_colons_are_styled_as_pyyaml_styles_them(words: list[tuple[str, str]], head: str) -> None:
    # The writer single-quotes "Created pod: NAME"-like values without asking PyYAML; it must agree, also
    # where the words look like numbers, booleans or other indicators.
    text = head + "".join(sep + word for sep, word in words)
    assert dump_all([{"k": text}, {"k": [text]}]) == _pyyaml([{"k": text}, {"k": [text]}])


_PART = st.one_of(st.dictionaries(_TEXT, _DATA, min_size=1, max_size=4), st.lists(_DATA, min_size=1, max_size=4))


@_RELAXED
@given(_PART, st.lists(st.tuples(_TEXT, st.integers(0, 3)), min_size=1, max_size=5), _DATA)
def test_shared_parts_give_the_same_bytes(part: Any, places: list[tuple[str, int]], other: Any) -> None:
    # One collection held in several documents as a mapping value at different depths (a template's part in
    # its replicas): written from the memo after the first time, the text is what a plain dump writes.
    docs: list[Any] = []
    for key, depth in places:
        value: Any = {key: part, "other": other}
        for level in range(depth):
            value = {f"l{level}": value} if level % 2 else {f"s{level}": [value, part]}
        docs.append(value)
    unshared = _unshared(docs)
    # Also when something else in the input hands the dump to PyYAML: no anchors and aliases then either.
    assert dump_all(docs, {id(part)}) == dump_all(unshared) == _pyyaml(unshared)


def _unshared(data: Any) -> Any:
    if type(data) is dict:
        return {k: _unshared(v) for k, v in data.items()}
    return [_unshared(v) for v in data] if type(data) is list else data
