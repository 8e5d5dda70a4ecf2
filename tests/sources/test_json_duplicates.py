"""A key set twice in one JSON object is an error naming the file, line and column, as for YAML (issue 11),
never a silent last-wins; JSON without duplicates reads as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.cli.main import cli
from drasim.errors import InputError
from drasim.sources import jsonkeys
from drasim.sources.files import check_json_duplicates, load_bytes, load_paths
from drasim.sources.jsonkeys import compact_json, duplicate_keys
from hypothesis_budget import examples

NODE = ('{"apiVersion": "v1", "kind": "Node",\n "metadata": {"name": "n1",\n'
        '  "labels": {"zone": "a", "quote\\"d": "x", "zone": "b"}}}')


def error_of(data: bytes, *, json_only: bool | None = True) -> InputError:
    with pytest.raises(InputError) as info:
        load_bytes(data, source="in.json", json=json_only)
    return info.value


def test_duplicate_label_names_both_lines() -> None:
    err = error_of(NODE.encode())
    assert str(err) == 'in.json: invalid JSON (line 3, column 44): key "zone" already set in object (line 3)'


@pytest.mark.parametrize("json_only", [True, None])
def test_duplicate_top_level_field_in_a_list_item(json_only: bool | None) -> None:
    data = b'[\n{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}},\n' \
           b'{"apiVersion": "v1", "kind": "Node",\n "metadata": {"name": "b"},\n "metadata": {"name": "c"}}\n]'
    err = error_of(data, json_only=json_only)
    assert err.message == 'invalid JSON (line 5, column 2): key "metadata" already set in object (line 4)'


def test_same_key_in_sibling_objects_is_fine() -> None:
    data = b'{"apiVersion": "v1", "kind": "List", "items": [' \
           b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}},' \
           b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b", "labels": {"name": "name"}}}]}'
    assert [o.metadata.name for o in load_bytes(data, source="in.json", json=True).objects] == ["a", "b"]


def test_escaped_spellings_of_one_key_are_the_same_key() -> None:
    err = error_of(b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "n\\u0061me": "b"}}')
    assert 'key "name" already set' in err.message


def test_every_command_reports_it(tmp_path: Path) -> None:
    path = tmp_path / "node.json"
    path.write_text(NODE)
    for args in (["validate", "-f", str(path)], ["lint", "-f", str(path)], ["simulate", "-f", str(path)]):
        result = CliRunner().invoke(cli, args)
        assert isinstance(result.exception, InputError), args
        assert str(result.exception).startswith(f"{path}: invalid JSON (line 3, column 44)")
        assert result.exception.exit_code == 2
    sniffed = tmp_path / "node.yaml"  # JSON in a .yaml file: read as JSON, same message
    sniffed.write_text(NODE)
    with pytest.raises(InputError, match=r"invalid JSON \(line 3, column 44\)"):
        load_paths([str(sniffed)])


keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4), max_leaves=20)


def _dup_text(obj: Any, path: list[Any], indent: int | None) -> str:
    """`obj` as JSON with the object at `path` given its first key a second time (at its end)."""
    if not path:
        body = json.dumps(obj, indent=indent)
        first = next(iter(obj))
        return body[:body.rstrip().rfind("}")] + f", {json.dumps(first)}: 0}}"
    head, rest = path[0], path[1:]
    inner = _dup_text(obj[head], rest, indent)
    if isinstance(obj, list):
        parts = [json.dumps(v, indent=indent) if i != head else inner for i, v in enumerate(obj)]
        return "[" + ",\n".join(parts) + "]"
    return "{" + ",\n".join(f"{json.dumps(k)}: {inner if k == head else json.dumps(v, indent=indent)}"
                            for k, v in obj.items()) + "}"


def _objects(value: Any, path: list[Any]) -> list[list[Any]]:
    out = [path] if isinstance(value, dict) and value else []
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for k, v in children:
        out += _objects(v, [*path, k])
    return out


@settings(max_examples=examples(200))
@given(json_values, st.data(), st.sampled_from([None, 1]))
def test_duplicates_are_found_and_unique_keys_pass(value: Any, data: st.DataObject, indent: int | None) -> None:
    raw = json.dumps(value, indent=indent).encode()
    check_json_duplicates(raw, source="x.json")  # json.dumps never repeats a key
    candidates = _objects(value, [])
    if not candidates:
        return
    path = data.draw(st.sampled_from(candidates))
    text = _dup_text(value, path, indent)
    expected = r"^x.json: invalid JSON \(line \d+, column \d+\): key .* already set in object"
    with pytest.raises(InputError, match=expected):
        check_json_duplicates(text.encode(), source="x.json")


# Keys that differ only in spaces: equal once the whitespace is dropped, so the quick parse raises a false alarm.
spaced_keys = st.text(st.sampled_from("a b"), max_size=4)
spaced_values = st.recursive(
    st.none() | st.integers() | st.text(st.sampled_from("a b"), max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(spaced_keys, inner, max_size=4), max_leaves=12)


@settings(max_examples=examples(300))
@given(st.one_of(spaced_values, json_values, st.recursive(
    st.text(st.sampled_from('a":\\'), max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(st.sampled_from('a":\\ '), max_size=4), inner,
                                                              max_size=4), max_leaves=12)),
    st.sampled_from([None, 0, 2]), st.booleans())
def test_the_compact_parse_answers_as_the_exact_parse(value: Any, indent: int | None, twice: bool) -> None:
    """`duplicate_keys` reading the text without whitespace first answers, for well-formed JSON, as the parse
    of the text as written (keys equal only without their spaces are not set twice; strings holding `":`)."""
    candidates = _objects(value, [])
    raw = (_dup_text(value, candidates[0], indent) if twice and candidates else json.dumps(value, indent=indent))
    exact = jsonkeys._sets_twice(raw.encode(), len)
    assert duplicate_keys(raw.encode(), compact=compact_json(raw.encode())) is exact
    assert exact is bool(twice and candidates)


def test_keys_equal_without_their_spaces_are_two_keys() -> None:
    data = b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "labels": {"a b": "1", "ab": "2"}}}'
    [node] = load_bytes(data, source="in.json", json=True).objects
    assert node.metadata.labels == {"a b": "1", "ab": "2"}


def test_a_quote_before_a_colon_in_a_string_is_no_key() -> None:
    """`":` counts the keys of compact JSON but for escaped quotes before a colon: that false alarm reads the
    text again as written, which finds no key set twice."""
    data = json.dumps({"apiVersion": "v1", "kind": "Node",
                       "metadata": {"name": "a", "labels": {'x": ': 'y":', "z": "1"}}}, indent=1).encode()
    assert duplicate_keys(data, compact=compact_json(data)) is False
    assert jsonkeys._fewer_keys(compact_json(data), len)  # the alarm went off


# Elements msgspec writes back as they are, and others: escapes, `1.50`, `1e2`, numbers msgspec refuses.
class Spelt(dict[str, str]):
    """An object whose values are JSON texts, written as they are."""


SPELLINGS = ["1.50", "1e2", "1e400", "-0", '"\\u0041"', '"\\/"', str(2**70), "1.0", '"a\\"\\\\b"']
spelt_items = st.one_of(json_values, st.dictionaries(keys, st.sampled_from(SPELLINGS), max_size=3).map(Spelt))
listish = st.tuples(st.lists(spelt_items, max_size=5),
                    st.dictionaries(st.sampled_from(["apiVersion", "kind", "metadata", "zz"]), json_values, max_size=3),
                    st.sampled_from(["list", "array", "items twice", "items nested first"]))


def _listish_text(items: list[Any], extra: dict[str, Any], shape: str, indent: int | None, twice: int | None) -> str:
    """A List (keys around `items`) or an array of `items`, elements written as drawn (`spelt_items` hold their
    own spelling as strings); `twice`: the element (or, past them, the List itself) given a key twice."""
    def element(i: int, value: Any) -> str:
        if isinstance(value, Spelt) and i != twice:
            return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in value.items()) + "}"
        if i == twice and isinstance(value, dict) and value:
            return _dup_text(dict(value) if not isinstance(value, Spelt) else {k: 0 for k in value}, [], indent)
        return json.dumps(value, indent=indent)
    array = "[" + ",\n ".join(element(i, v) for i, v in enumerate(items)) + "]"
    if shape == "array":
        return array
    parts = [f"{json.dumps(k)}: {json.dumps(v, indent=indent)}" for k, v in extra.items()]
    if shape == "items nested first":
        parts.insert(0, f'"metadata": {{"items": {json.dumps(items[:1])}}}')
    parts.append(f'"items": {array}')
    if shape == "items twice":
        parts.insert(0, f'"items": {json.dumps(items[1:])}')
    if twice is not None and twice >= len(items) and shape != "items twice":
        parts.append('"items": []')
    return "{" + ",\n".join(parts) + "}"


@settings(max_examples=examples(400))
@given(listish, st.sampled_from([None, 0, 2]), st.one_of(st.none(), st.integers(0, 6)))
def test_a_list_read_element_by_element_answers_as_the_exact_parse(
        drawn: tuple[list[Any], dict[str, Any], str], indent: int | None, twice: int | None) -> None:
    """The List (and array) path, each element written back by msgspec or else parsed alone, answers as the parse
    of the whole text as written: elements with a key twice, a List with `items` twice, elements msgspec spells
    otherwise, a key's `items` array before the List's."""
    items, extra, shape = drawn
    raw = _listish_text(items, extra, shape, indent, twice).encode()
    exact = jsonkeys._sets_twice(raw, len)
    assert duplicate_keys(raw, compact=compact_json(raw)) is exact


def test_a_fleet_like_list_is_answered_by_its_elements() -> None:
    """A List msgspec writes back element for element is answered without `_fewer_keys`; a key twice in the
    last element, or `items` twice, is still found."""
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {"a": "1"}}}
             for i in range(3)]
    raw = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2).encode()
    assert jsonkeys._items_distinct(compact_json(raw)) is False
    assert duplicate_keys(raw, compact=compact_json(raw)) is False
    twice = raw[:raw.rfind(b'"name": "n2"')] + b'"name": "n2", "name": "n3"' + raw[raw.rfind(b'"name": "n2"') + 12:]
    assert duplicate_keys(twice, compact=compact_json(twice)) is True
    items_twice = raw.replace(b'"items": [', b'"items": [], "items": [', 1)
    assert duplicate_keys(items_twice, compact=compact_json(items_twice)) is True
    spaced = raw.replace(b'"a": "1"', b'"a b": "1", "ab": "2"')  # equal keys without their spaces: the exact parse
    assert jsonkeys._items_distinct(compact_json(spaced)) is True
    assert duplicate_keys(spaced, compact=compact_json(spaced)) is False


@pytest.mark.parametrize("data", [b'{"apiVersion": "v1", "kind": "List", "items": [{"a": 1 2, "a": 3}]}',
                                  b'[{"a": 1, "a": 2}, tr ue]', b'{"a": 1, "a": 2'])
def test_a_syntax_error_comes_before_a_key_set_twice(data: bytes) -> None:
    """The duplicate check reads the compact copy before the decode (to free it early): on malformed text, which
    the copy may not be (`1 2`), the decode's syntax error is the answer, as when the check came after it."""
    assert error_of(data).message.startswith("invalid JSON: ")


def test_a_kind_set_twice_past_the_envelope_peek_is_read_as_written() -> None:
    """Whitespace keeps the second `kind` out of the envelope's peek at the text; the minified copy would not:
    such an item keeps the answer of the text as written (the first `kind` chooses the decoder)."""
    item = ('{"apiVersion": "resource.k8s.io/v1",' + " " * 250 + '"kind": "DeviceClass", "metadata": {"name": "a"}, '
            '"spec": {"selectors": []}, "kind": "ResourceClaim"}')
    with pytest.raises(InputError) as err:
        load_bytes(f"[{item}]".encode(), source="f.json", json=True)
    assert 'ResourceClaim/a: spec.selectors: unknown field "selectors"' in str(err.value)
