"""YAML written straight from the structs (api.yamlstruct) is the plain walk of `encode_object` of each object,
and JSON encoded from the structs is the wire form's."""

from __future__ import annotations

import glob
import os
import types
import typing
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import msgspec
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drasim.api.core import Pod
from drasim.api.decode import decode_documents
from drasim.api.encode import encode_object, json_document, json_list, object_json, yaml_documents, yaml_objects
from drasim.api.kinds import KINDS
from drasim.api.meta import ObjectMeta
from drasim.api.quantity import Quantity
from drasim.errors import DrasimError
from drasim.sim.report import EventDocument
from drasim.sources.files import load_bytes
from hypothesis_budget import examples

TESTS = os.path.join(os.path.dirname(__file__), "..")

_TEXT = st.sampled_from(["", "a", "web-0", "yes", "1", "a: b", "x y", "0000:10:00.0", "é", "a\nb"])
_PLAIN = st.recursive(st.one_of(_TEXT, st.integers(-3, 3), st.booleans(), st.none()),
                      lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(_TEXT, inner, max_size=2)),
                      max_leaves=4)
# UTC mostly, sometimes another offset, often one instant (equal datetimes whose texts are their offsets').
_STAMP = st.tuples(
    st.one_of(st.just(datetime(2024, 1, 1, tzinfo=UTC)),
              st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1)).map(
                  lambda d: d.replace(tzinfo=UTC))),
    st.sampled_from([UTC, UTC, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5, minutes=-30))]),
).map(lambda d: d[0].astimezone(d[1]))
_QUANTITY = st.sampled_from(["1", "0", "1Gi", "500m", "2k", "1.5"]).map(Quantity.parse)


def _values(tp: Any, depth: int) -> st.SearchStrategy[Any]:
    """Values of an annotated field type (structs to `depth` levels)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _values(args[0], depth)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[_values(a, depth) for a in args])
    if origin is list:
        return st.lists(_values(args[0], depth), max_size=2) if depth > 0 else st.just([])
    if origin is dict:
        return st.dictionaries(_TEXT, _values(args[1], depth), max_size=2) if depth > 0 else st.just({})
    if origin is typing.Literal:
        return st.sampled_from(args)
    if tp is type(None):
        return st.none()
    if tp is str:
        return _TEXT
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(-2, 70000)
    if tp is datetime:
        return _STAMP
    if tp is Quantity:
        return _QUANTITY
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _struct(tp, depth - 1) if depth > 0 else st.nothing()
    return _PLAIN  # Any and the like


def _struct(cls: type, depth: int, *, nested: bool = True) -> st.SearchStrategy[Any]:
    required, optional = {}, {}
    for f in msgspec.structs.fields(cls):
        if f.name in ("api_version", "kind"):
            continue
        values = _values(f.type, depth)
        if f.required:
            required[f.name] = values
        else:
            default = f.default if f.default is not msgspec.NODEFAULT else f.default_factory()
            # The default object itself too: omit_defaults leaves out only that one (or an empty collection);
            # and in nested structs sometimes plain data of another type than annotated (the writer's generic
            # path; an object's own spec, and a slice's pool, must be structs for encode_object).
            mismatch = [_PLAIN] if nested and f.name != "pool" else []
            optional[f.name] = st.one_of(values, st.just(default), *mismatch)
    return st.fixed_dictionaries(required, optional=optional).map(lambda kw: cls(**kw))


# Every kind, and the Events simulate prints (laid out as objects).
_CLASSES = [*(cls for kinds in KINDS.values() for cls in kinds.values()), EventDocument]
_OBJECT = st.sampled_from(_CLASSES).flatmap(lambda cls: _struct(cls, 4, nested=False))


def _plain_yaml(objs: list[Any]) -> str:
    return yaml_documents([encode_object(o) for o in objs])


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], deadline=None,
          max_examples=examples(300))
@given(st.lists(_OBJECT, min_size=1, max_size=3), st.integers(0, 2))
def test_struct_writer_is_the_plain_walk(objs: list[Any], copies: int) -> None:
    # Copies hold the first object's parts by identity, as a template's replicas do (memoised by id).
    first = objs[0]
    objs = objs + [msgspec.structs.replace(first) for _ in range(copies)]
    assert yaml_objects(objs) == _plain_yaml(objs)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], deadline=None,
          max_examples=examples(150))
@given(st.lists(_OBJECT, min_size=1, max_size=3))
def test_struct_json_is_the_wire_form(objs: list[Any]) -> None:
    # The JSON struct path (object_json and the List's pieces) shares the writer's test of what
    # encode_object reshapes (api.encode._plan).
    assert [object_json(o) for o in objs] == [json_document(encode_object(o), indent=0) for o in objs]
    whole = json_document({"apiVersion": "v1", "kind": "List", "items": [encode_object(o) for o in objs]})
    assert json_list(objs[:1], objs[1:]) == whole


def test_every_conformance_and_realworld_object() -> None:
    # Objects as read from files: apiVersion/kind strings equal to the defaults but not the same objects.
    objs = []
    for path in sorted(glob.glob(os.path.join(TESTS, "conformance", "*", "*.yaml"))):
        with open(path, "rb") as f:
            objs += decode_documents(yaml.load(f, Loader=yaml.CSafeLoader)["objects"], source=path).objects
    for path in sorted(glob.glob(os.path.join(TESTS, "realworld", "**", "*.yaml"), recursive=True)):
        try:
            with open(path, "rb") as f:
                objs += load_bytes(f.read(), source=path).objects
        except DrasimError:
            continue  # a few real files are not (valid) YAML
    assert len(objs) > 1000
    assert yaml_objects(objs) == _plain_yaml(objs)
    assert [object_json(o) for o in objs] == [json_document(encode_object(o), indent=0) for o in objs]


def test_same_instant_other_offset() -> None:
    # Equal datetimes (one instant) with other offsets: each written with its own offset, as to_builtins does.
    utc = datetime(2024, 1, 1, 0, 0, tzinfo=UTC)
    plus1 = datetime(2024, 1, 1, 1, 0, tzinfo=timezone(timedelta(hours=1)))
    for first, second in ((utc, plus1), (plus1, utc)):
        objs = [Pod(metadata=ObjectMeta(name="a", creation_timestamp=first)),
                Pod(metadata=ObjectMeta(name="b", creation_timestamp=second))]
        text = yaml_objects(objs)
        assert text == _plain_yaml(objs)
        assert "'2024-01-01T00:00:00Z'" in text and "'2024-01-01T01:00:00+01:00'" in text


@settings(deadline=None, max_examples=examples(100))
@given(st.lists(_STAMP, min_size=2, max_size=4))
def test_stamps_of_several_objects(stamps: list[datetime]) -> None:
    # Several objects' datetimes, often one instant with other offsets (the writer memoises datetimes' texts).
    objs = [Pod(metadata=ObjectMeta(name=f"p{i}", creation_timestamp=s)) for i, s in enumerate(stamps)]
    assert yaml_objects(objs) == _plain_yaml(objs)


def test_plain_documents_that_are_not_mappings() -> None:
    # Plain extra documents that are not non-empty dicts go to PyYAML as they are (not through encode_object).
    assert yaml_objects([], [{}]) == "{}\n"
    assert yaml_objects([], [[1, 2]]) == "- 1\n- 2\n"
    pod = Pod(metadata=ObjectMeta(name="a"))
    assert yaml_objects([pod], [{}, [1, 2]]) == yaml_documents([encode_object(pod), {}, [1, 2]])


def test_equal_fields_keys_of_other_types() -> None:
    # Labels are memoised by JSON, which makes every key a string: {1: "a"} is not {"1": "a"}.
    objs = [Pod(metadata=ObjectMeta(name="a", labels={"1": "a"})), Pod(metadata=ObjectMeta(name="b", labels={1: "a"})),
            Pod(metadata=ObjectMeta(name="c", labels={1: "a"}))]
    text = yaml_objects(objs)
    assert text == _plain_yaml(objs)
    assert "'1': a" in text and "\n    1: a\n" in text


def test_struct_with_a_keyword_field() -> None:
    # A struct field named as a Python keyword: no generated writer (it would not compile), PyYAML writes it.
    odd = msgspec.defstruct("Odd", [("class", str)])
    objs = [Pod(metadata=ObjectMeta(name="a", labels=odd("x")))]  # type: ignore[arg-type]
    assert yaml_objects(objs) == _plain_yaml(objs) == yaml_documents([encode_object(objs[0])])
    assert "class: x" in yaml_objects(objs)
