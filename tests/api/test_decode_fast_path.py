"""The typed JSON path (`decode_json_bytes`: envelope peek, typed decoders, remembered quantities) gives exactly
what the dict path (`decode_documents` of the parsed JSON) gives: the same objects, versions, warnings and
error messages, on real manifests changed in every way the fuzzer knows, written as kubectl and others do."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from decode_summary import summary
from drasim.api.decode import decode_documents, decode_json_bytes
from drasim.api.encode import encode_object
from drasim.errors import InputError
from drasim.sources.files import load_bytes
from drasim.sources.jsonkeys import minify
from fuzz_inputs import MANIFESTS, docs_of, mutate_tree
from hypothesis_budget import examples


def _outcome(decode: Any) -> Any:
    try:
        return summary(decode())
    except InputError as err:
        return ("error", err.message, err.source, err.obj, err.path)


@st.composite
def json_inputs(draw: st.DrawFn) -> bytes:
    docs = docs_of(draw(st.sampled_from(MANIFESTS)))
    if docs and draw(st.booleans()):
        docs = draw(mutate_tree(docs))
    form = draw(st.sampled_from(["list", "array", "object", "typed-list"]))
    if form == "list":
        doc: Any = {"apiVersion": "v1", "kind": "List", "items": docs}
    elif form == "array":
        doc = docs
    elif form == "object":
        doc = docs[0] if docs else {}
    else:  # kubectl get -o json of one kind: items may leave out their own apiVersion and kind
        first = docs[0] if docs and isinstance(docs[0], dict) else {}
        items = [{k: v for k, v in d.items() if k not in ("apiVersion", "kind") or draw(st.booleans())}
                 if isinstance(d, dict) else d for d in docs]
        doc = {"apiVersion": first.get("apiVersion", "v1"), "kind": f"{first.get('kind', 'Pod')}List",
               "items": items}
    # A JSON file that is `null` is refused as no object; the dict path skips null documents as YAML's empty
    # ones (both as before the typed path): not a case to compare.
    assume(doc is not None)
    indent = draw(st.sampled_from([None, 1, 2, 4]))
    separators = draw(st.sampled_from([None, (",", ":"), (" ,", " : ")]))
    try:  # the fuzzer's floats include inf and nan, which JSON cannot hold
        text = json.dumps(doc, indent=indent, separators=separators, allow_nan=False)
    except ValueError:
        assume(False)
    return text.encode()


@settings(max_examples=examples(300), deadline=None)
@given(json_inputs(), st.booleans())
def test_fast_path_matches_dict_path(data: bytes, keep_going: bool) -> None:
    fast = _outcome(lambda: decode_json_bytes(data, source="in.json", keep_going=keep_going))
    slow = _outcome(lambda: decode_documents([msgspec.json.decode(data)], source="in.json", keep_going=keep_going))
    assert fast == slow


def test_quantities_are_shared_and_still_checked() -> None:
    """A quantity string read twice decodes to equal values; a bad one fails every time with the same words."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
            "status": {"capacity": {"cpu": "8", "memory": "1Gi"}, "allocatable": {"cpu": "8"}}}
    bad = {**node, "metadata": {"name": "m"}, "status": {"capacity": {"cpu": "8x"}}}
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, bad, node, bad]}).encode()
    result = decode_json_bytes(data, source="in.json", keep_going=True)
    assert [o.metadata.name for o in result.objects] == ["n", "n"]
    assert encode_object(result.objects[0]) == encode_object(result.objects[1])
    assert len(result.errors) == 2 and result.errors[0].message == result.errors[1].message
    assert [e.obj for e in result.errors] == ["items[1] Node/m", "items[3] Node/m"]


# The typed decode reading msgspec's minified copy of a JSON text (`decode_json_bytes(minified=...)`) answers as
# reading the text itself: the same objects, warnings and errors, syntax errors with the text's line and column.

@st.composite
def spoilt(draw: st.DrawFn, text: bytes) -> bytes:
    """`text` with a few bytes replaced, dropped or added: whitespace msgspec reads or not, brackets, quotes,
    escapes, digits, invalid UTF-8."""
    out = bytearray(text)
    for _ in range(draw(st.integers(0, 3))):
        if not out:
            break
        at = draw(st.integers(0, len(out) - 1))
        byte = draw(st.sampled_from(b' \t\r\n\x0b\x0c{}[]",:\\0123456789-+.eEtrufalsn\x00\x80\xff'))
        how = draw(st.sampled_from(["set", "drop", "add"]))
        if how == "set":
            out[at] = byte
        elif how == "drop":
            del out[at]
        else:
            out.insert(at, byte)
    return bytes(out)


@settings(max_examples=examples(300), deadline=None)
@given(json_inputs().flatmap(spoilt), st.booleans())
def test_the_minified_copy_decodes_as_the_text(data: bytes, keep_going: bool) -> None:
    minified = minify(data)
    plain = _outcome(lambda: decode_json_bytes(data, source="in.json", keep_going=keep_going))
    assert _outcome(lambda: decode_json_bytes(data, source="in.json", keep_going=keep_going,
                                              minified=minified)) == plain


def _loaded(data: bytes) -> Any:
    try:
        result = load_bytes(data, source="in.json", json=True)
    except InputError as err:
        return ("error", err.message)
    return [o.metadata.name for o in result.objects]


def test_a_text_msgspec_only_formats_is_refused_as_before() -> None:
    """msgspec's format copies strings and numbers without reading them: a string of invalid UTF-8 passes it,
    and the decode of the text, not of the copy, words the error."""
    data = b'{"apiVersion": "v1", "kind": "Node",\n "metadata": {"name": "n\xff"}}'
    assert minify(data) is not None
    assert _loaded(data) == ("error", "invalid JSON: Invalid UTF-8 encoded string")
    deep = b"[" * 3000 + b"]" * 3000  # the format recurses: refused there, the depth guard words it
    assert minify(deep) is None
    assert _loaded(deep)[1].startswith("invalid JSON (line 1, column 201): nested more than 200 levels deep")
