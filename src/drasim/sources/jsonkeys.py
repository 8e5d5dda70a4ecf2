"""JSON objects with a key set twice: refused with both lines, as Kubernetes' strict decoding refuses them."""

from __future__ import annotations

import json as json_module
import re
from collections.abc import Callable
from typing import Any

import msgspec

from drasim.api.decode import _raw_array_decoder, gc_paused
from drasim.errors import InputError

__all__ = ["JSON_TOKEN", "check_json_duplicates", "compact_json", "duplicate_keys", "keys_twice", "minify"]

# A JSON string (group 1: the colon that makes it a key) or a bracket: what the error paths walk to find a place.
JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?|[{}\[\]]')


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> None:
    # Only the keys matter: nothing is built (objects parse to None) and one-key objects, most of a
    # fleet's, cost one len().
    n = len(pairs)
    if n > 1 and len(dict(pairs)) != n:
        raise _DuplicateKey


def check_json_duplicates(data: bytes, *, source: str, twice: bool | None = None) -> None:
    """`InputError` for a key set twice in one JSON object, with both lines, as Kubernetes' strict decoding
    refuses it (msgspec, like Go's encoding/json, would keep the last one silently). `twice`: `keys_twice`'s
    answer, when the caller has it."""
    if keys_twice(data) if twice is None else twice:
        raise _locate_duplicate(data.decode("utf-8", "replace"), source)


def keys_twice(data: bytes, *, compact: bytes | None = None) -> bool:
    """`duplicate_keys`, False for JSON it cannot read: malformed in a way msgspec accepts, or malformed at all
    when asked before the decode, whose syntax error then comes first (the answer is used after it)."""
    try:
        return duplicate_keys(data, compact=compact)
    except ValueError:
        return False


def duplicate_keys(data: bytes | bytearray | memoryview, *, number: Callable[[str], Any] = len,
                   compact: bytes | None = None) -> bool:
    """Whether some object of the JSON sets a key twice (ValueError if it is malformed). Costs a second parse
    in C (about 4 ms per MB, with the cyclic collector paused: the parse allocates millions of tuples); only
    keys matter, so objects are never built and numbers only handed to `number` (it may raise). With
    `compact` (the data's `compact_json` or `minify`; the answer holds for well-formed data, so it is used
    only once the data decoded) a List's elements (`_items_distinct`), or else `_fewer_keys`, read that
    instead, and the data as written is parsed only on a hit there."""
    if compact is not None and number is len:
        items = _items_distinct(compact)
        if items is not None:
            return items and _sets_twice(bytes(data) if isinstance(data, memoryview) else data, number)
    if compact is not None and not _fewer_keys(compact, number):
        return False
    return _sets_twice(bytes(data) if isinstance(data, memoryview) else data, number)  # json reads no views


_WHITESPACE = b" \t\n\r"


def compact_json(data: bytes) -> bytes:
    """The JSON without its ASCII whitespace, which is over half of a pretty-printed dump's bytes (58% of the
    5,000-node fleet's) and costs every pass over the text. Tokens of well-formed JSON hold none but strings,
    and brackets and quotes stay where they were, so the depth guard and the duplicate check read this when
    they can: in a string, two keys may become equal (a false alarm the exact parse settles), never two equal
    keys differ. Only malformed text (`1 2`) can turn well formed, so the duplicate check reads it only for
    text msgspec decoded. (For rapidyaml's JSON it saved nothing: the copy and the count cost what they saved.)"""
    return data.translate(None, _WHITESPACE)


def minify(data: bytes) -> bytes | None:
    """The JSON without whitespace between its tokens, each token as written (msgspec's format: ~0.2 CPU-s for
    the 5,000-node fleet against compact_json's 0.1, paid back by the typed decode reading it instead of the
    data), for the depth guard and the duplicate check too. None when msgspec refuses the text: the decode of
    the data says why and where (the format's own words differ)."""
    try:
        return msgspec.json.format(data, indent=-1)
    except (msgspec.DecodeError, RecursionError):
        return None


def _fewer_keys(compact: bytes, number: Callable[[str], Any]) -> bool:
    """Whether the distinct keys of each object of compact well-formed JSON add up to other than the text's
    count of `":`: a key set twice, or a false alarm (a `\\"` before a colon in a string, keys equal but for
    their spaces). Every key is a string right before a colon and no other string is, so the count is at
    least the keys' and equals them unless a string holds an escaped quote before a colon. The
    parser builds each object's dict and hands its keys to a list in C: no Python call per object, which
    `_sets_twice`'s hook costs (0.61 -> 0.58 CPU-s for the 5,000-node fleet's 2 million objects; on
    rapidyaml's indented JSON the count of the longer text cost what the hook saved)."""
    keys: list[str] = []
    with gc_paused():
        json_module.loads(compact, object_hook=keys.extend, parse_int=number, parse_float=number,
                          parse_constant=number)
    return len(keys) != compact.count(b'":')


class _Items(msgspec.Struct):
    items: list[msgspec.Raw]


_items_decoder = msgspec.json.Decoder(_Items)
_any_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()


def _items_distinct(compact: bytes) -> bool | None:
    """For compact well-formed JSON that is an array or an object with `items` (a List): whether some key may be
    set twice (True: the exact parse decides); None when there is no such array or it is not where it was
    looked for (`_fewer_keys` decides). An element whose dicts msgspec writes back byte for byte sets no key
    twice (a dict holds each key once): 0.35 CPU-s for the 5,000-node fleet's elements against `_fewer_keys`'
    0.58, and one element at a time keeps no tree nor str copy of the text alive. Other elements (escapes,
    numbers spelt otherwise) get the exact parse one by one; the text around the elements, once."""
    try:
        if compact[:1] == b"[":
            items, start = _raw_array_decoder.decode(compact), 1
        else:
            # `"items":[` opens some key's array wherever it is found (no string holds a bare quote); which key's
            # does not matter: the elements are compared with the text found there.
            items, start = _items_decoder.decode(compact).items, compact.find(b'"items":[') + 9
            if start < 9:
                return None
    except msgspec.DecodeError:  # not such a List (ValidationError), or no JSON at all (a ValueError only from 0.20)
        return None
    at, last = start, len(items) - 1
    if not items:
        at += 1
        if compact[start:at] != b"]":
            return None
    with gc_paused():
        for k, raw in enumerate(items):
            text = memoryview(raw)
            try:
                written = _encoder.encode(_any_decoder.decode(text))
            except (msgspec.DecodeError, ValueError, OverflowError):  # msgspec's own limits: the exact parse
                written = b""
            size = len(written)
            if not (written and compact.startswith(written, at)):  # memcmp (a memoryview's == goes byte by byte)
                if not compact.startswith(text, at):
                    return None
                if _sets_twice(bytes(text), len):
                    return True
                size = len(text)
            at += size + 1
            if compact[at - 1:at] != (b"," if k < last else b"]"):
                return None
    return _sets_twice(compact[:start] + compact[at - 1:], len)


def _sets_twice(text: bytes | bytearray, number: Callable[[str], Any]) -> bool:
    try:
        with gc_paused():
            json_module.loads(text, object_pairs_hook=_unique_keys, parse_int=number, parse_float=number,
                              parse_constant=number)
    except _DuplicateKey:
        return True
    return False


def _locate_duplicate(text: str, source: str) -> InputError:
    """The first duplicate key's place (only on the error path: a Python walk over every token)."""
    stack: list[dict[str, int] | None] = []
    line, counted = 1, 0  # lines up to offset `counted`: counted incrementally, never from the start again
    for m in JSON_TOKEN.finditer(text):
        token = m.group(0)
        if token in ("{", "["):
            stack.append({} if token == "{" else None)
        elif token in ("}", "]"):
            stack.pop()
        elif m.group(1) and stack and stack[-1] is not None:
            key = json_module.loads(token[:m.start(1) - m.start()])
            line += text.count("\n", counted, m.start())
            counted = m.start()
            if key in stack[-1]:
                column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                quoted = json_module.dumps(key, ensure_ascii=False)
                return InputError(f"invalid JSON (line {line}, column {column}): key {quoted} already set in object "
                                  f"(line {stack[-1][key]})", source=source)
            stack[-1][key] = line
    return InputError("invalid JSON: a key is set twice in one object", source=source)
