"""Encode drasim objects to the v1 wire form (dicts, multi-document YAML, JSON) as the API server prints."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Collection, Iterable, Iterator
from typing import Any

import msgspec

from drasim.api.core import PodSpec, PodStatus
from drasim.api.kinds import KubeObject
from drasim.api.meta import ObjectMeta
from drasim.api.quantity import quantity_enc_hook
from drasim.api.resource import AllocationResult, ResourceClaim

__all__ = ["encode_object", "json_document", "json_list", "json_list_chunks", "object_json", "to_json", "to_yaml",
           "yaml_documents", "yaml_objects"]


def encode_object(obj: KubeObject) -> dict[str, Any]:
    """The wire form of `obj`: camelCase keys in struct order, empty and default fields omitted.

    `apiVersion`, `kind` and `metadata` always come first (the structs omit them as defaults), `spec` is
    always present where the kind has one; `spec.pool` of a ResourceSlice always carries `name`,
    `generation` and `resourceSliceCount` (required fields the API server prints even when zero).
    Map keys keep their order (attributes as written), so decode -> encode -> decode is the identity.
    """
    body = msgspec.to_builtins(obj, enc_hook=quantity_enc_hook)
    out: dict[str, Any] = {"apiVersion": obj.api_version, "kind": obj.kind,
                           "metadata": body.pop("metadata", {})}
    body.pop("apiVersion", None)
    body.pop("kind", None)
    spec = getattr(obj, "spec", None)
    if spec is not None and "spec" not in body:
        body = {"spec": {}, **body}
    if obj.kind == "ResourceSlice":
        pool = obj.spec.pool  # type: ignore[union-attr]
        wire_spec = body["spec"]
        wire_pool = {"name": pool.name, "generation": pool.generation,
                     "resourceSliceCount": pool.resource_slice_count}
        if "pool" in wire_spec:
            wire_spec["pool"] = wire_pool
        else:  # keep struct order: driver, pool, ...
            items = list(wire_spec.items())
            at = 1 if items and items[0][0] == "driver" else 0
            body["spec"] = dict([*items[:at], ("pool", wire_pool), *items[at:]])
    out.update(body)
    return out


def to_yaml(objs: Iterable[KubeObject]) -> str:
    """Multi-document YAML (`---` between objects), block style, keys in struct order."""
    return yaml_objects(objs)


def yaml_documents(docs: Iterable[dict[str, Any]]) -> str:
    """Multi-document YAML of wire-form dicts (as `to_yaml` writes objects)."""
    from drasim.api.yamlemit import dump_all  # only YAML output pays for the writer's import (regexes, PyYAML)

    return dump_all(docs)


# Fields whose values a template's replicas share by identity: a claim's spec (immutable) and the collections
# of a pod's spec (the pod's own shallow copy of the template's, nodeName set on it):
# controllers.resourceclaim.template_copy. Their text is made once per value and indent.
_SHARED_FIELDS: dict[type, frozenset[str]] = {
    ResourceClaim: frozenset({"spec"}),
    PodSpec: frozenset(f.name for f in msgspec.structs.fields(PodSpec) if f.default_factory is not msgspec.NODEFAULT)}
# Fields replicas hold equal though not shared (a workload's labels and owner, the PodScheduled condition, a
# node's allocation selector): their text is made once per JSON of the value and indent (same JSON, same
# types and order, so the same text).
_EQUAL_FIELDS: dict[type, frozenset[str]] = {
    ObjectMeta: frozenset({"labels", "owner_references"}), PodStatus: frozenset({"conditions"}),
    AllocationResult: frozenset({"node_selector"})}


def yaml_objects(objs: Iterable[KubeObject], extra: Iterable[dict[str, Any]] = (),
                 extra_shared: Collection[int] = ()) -> str:
    """`yaml_documents` of `encode_object` of each object, then the plain `extra` documents: the same text.

    Objects whose wire form is their struct's encoding (`_struct_encodes`) are written from the struct itself
    (api.yamlstruct), the parts of `_SHARED_FIELDS` and `_EQUAL_FIELDS` once each; the others through
    `encode_object`. `extra_shared`: ids of the collections `extra` holds in several places (as mapping
    values), written once per indent too.
    """
    from drasim.api.yamlemit import dump_all
    from drasim.api.yamlstruct import StructWriter

    writer = StructWriter(extra_shared, eligible=_struct_encodes, plain=encode_object, enc_hook=quantity_enc_hook,
                          identity=_SHARED_FIELDS, equal=_EQUAL_FIELDS)
    return dump_all([*objs, *extra], writer=writer)


def _struct_encodes(obj: KubeObject) -> bool:
    """Whether `encode_object(obj)` is `apiVersion` and `kind`, then the struct's own fields as msgspec encodes
    them (metadata third): `object_json`'s struct path (`_plan`)."""
    plan = _plan_of(type(obj))
    return plan is not None and (not plan[3] or _pool_as_struct(obj)) and obj.api_version == plan[1] \
        and obj.kind == plan[2]


def to_json(objs: Iterable[KubeObject], *, as_list: bool | None = None, indent: int = 2) -> bytes:
    """JSON: one object as itself, several as a `kind: List` (like `kubectl get -o json`).

    `as_list=True` always writes a List, `False` requires exactly one object. `indent=0` is compact.
    """
    encoded = [encode_object(o) for o in objs]
    if as_list is None:
        as_list = len(encoded) != 1
    if not as_list and len(encoded) != 1:
        raise ValueError(f"to_json(as_list=False) needs exactly one object, got {len(encoded)}")
    doc: Any = {"apiVersion": "v1", "kind": "List", "items": encoded} if as_list else encoded[0]
    return json_document(doc, indent=indent)


def json_document(doc: Any, *, indent: int = 2) -> bytes:
    """JSON of plain data as `json.dumps(doc, indent=2, ensure_ascii=False)` writes it, at C speed."""
    data = msgspec.json.encode(doc)
    return msgspec.json.format(data, indent=indent) if indent else data


_JSON = msgspec.json.Encoder(enc_hook=quantity_enc_hook)
# Factories whose empty product omit_defaults leaves out (msgspec's is_default); any other factory's product is
# always written (api.yamlstruct too).
EMPTY_FACTORIES = (list, dict, set, bytearray)


def object_json(obj: KubeObject) -> bytes:
    """Compact JSON of `encode_object(obj)`, encoded from the struct itself where that gives the same bytes.

    The struct's own encoding already omits defaults in field order; only `apiVersion` and `kind` (omitted as
    defaults) must be put in front. Objects whose wire form `encode_object` reshapes further (an empty
    metadata or spec, a ResourceSlice's pool with a zero or empty field, a non-default apiVersion) take the
    dict path.
    """
    return b"".join(_object_pieces(obj))


def _object_pieces(obj: Any) -> tuple[bytes | memoryview, ...]:
    """`object_json(obj)` in pieces (the head apart, so the struct's bytes are not copied to prepend it)."""
    if _struct_encodes(obj):
        plan = _plan_of(type(obj))
        assert plan is not None  # _struct_encodes found it
        head, version, kind, _slice = plan
        if obj.api_version is version and obj.kind is kind:
            # The default objects themselves: omit_defaults leaves them out, the struct starts with metadata.
            return head, memoryview(_JSON.encode(obj))[1:]
        # A decoded object's apiVersion and kind equal the defaults but are other str objects, which
        # omit_defaults keeps: the struct wrote the head already.
        raw = _JSON.encode(obj)
        if raw.startswith(head) and raw.startswith(b'"metadata":', len(head)):
            return (raw,)
    return (_JSON.encode(encode_object(obj)),)


_Plan = tuple[bytes, str, str, bool]
# Per class: its `_plan` (False: none), made on first use (a dict lookup per object, not a cached call).
_PLANS: dict[type, _Plan | bool] = {}


def _plan_of(cls: type) -> _Plan | None:
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _plan(cls)
    return plan if isinstance(plan, tuple) else None


def _plan(cls: Any) -> _Plan | bool:
    """(head, default apiVersion, default kind, is a ResourceSlice) where the class's struct encoding, after
    the head, is `encode_object`'s whenever its pool is (`_pool_as_struct`): apiVersion and kind first with
    defaults, metadata third and always written (a factory's product), a spec never left out unless None
    (encode_object would write `spec: {}` first); False otherwise."""
    head = _head(cls)
    fields = msgspec.structs.fields(cls)
    if head is None or len(fields) < 3 or fields[2].name != "metadata" or fields[2].default_factory in (
            msgspec.NODEFAULT, *EMPTY_FACTORIES):
        return False
    spec = next((f for f in fields if f.name == "spec"), None)
    if spec is not None and spec.default is not None and spec.default is not msgspec.NODEFAULT:
        return False
    version, kind = cls.__struct_defaults__[:2]
    return head, version, kind, cls.__name__ == "ResourceSlice"


@functools.cache
def _head(cls: Any) -> bytes | None:
    """`{"apiVersion":...,"kind":...,` of the class's default version and kind, or None when its first fields
    are not those two with defaults (the struct fast path of `object_json` does not apply)."""
    fields, defaults = cls.__struct_fields__, cls.__struct_defaults__
    if fields[:2] != ("api_version", "kind") or len(defaults) != len(fields):  # defaults are the last fields'
        return None
    version, kind = defaults[:2]
    return b'{"apiVersion":' + _JSON.encode(version) + b',"kind":' + _JSON.encode(kind) + b","


def _pool_as_struct(obj: KubeObject) -> bool:
    """Whether the struct encoding already writes what `encode_object` makes of a ResourceSlice's pool (all of
    name, generation and resourceSliceCount, in that order): when none of them holds its default, which
    omit_defaults would leave out. True for every other kind. A fleet is mostly slices."""
    if obj.kind != "ResourceSlice":
        return True
    pool = obj.spec.pool  # type: ignore[union-attr]
    return bool(pool.name) and pool.generation != 0 and pool.resource_slice_count != 0


def json_list(objs: Iterable[KubeObject], extra: Iterable[Any] = (), *, indent: int = 2) -> bytes:
    """`json_document` of a `kind: List` holding `encode_object` of each object, then the `extra` items (plain
    data, or structs `encode_object` encodes)."""
    return b"".join(json_list_chunks(objs, extra, indent=indent))


def json_list_chunks(objs: Iterable[KubeObject], extra: Iterable[Any] = (), *, indent: int = 2,
                     batch: int = 512) -> Iterator[bytes | memoryview]:
    """`json_list` in pieces of up to `batch` items (their concatenation is the same bytes), so a caller
    that writes them out never holds the whole document: a 50,000-pod simulation prints ~400 MB. Pieces
    are views where a copy would only cut them out (write them to a binary stream, or join them)."""
    # Extra items are plain data or structs laid out as objects (sim.report.EventDocument: apiVersion and kind
    # defaults, metadata third), which object_json writes with their head.
    items = itertools.chain(map(_object_pieces, objs),
                            (_object_pieces(d) if isinstance(d, msgspec.Struct) else (_JSON.encode(d),) for d in extra))
    if not indent:
        yield b'{"apiVersion":"v1","kind":"List","items":['
        sep = b""
        for group in _batched(items, batch):
            yield sep
            yield _joined(group, b"", b"")
            sep = b","
        yield b"]}"
        return
    # msgspec.json.format of the whole List, a batch at a time: formatted inside two arrays, the batch's
    # items are two levels deep as the List's items are, so the text between those arrays' brackets is theirs.
    top = b" " * indent
    head, tail = b"[\n" + top + b"[\n", b"\n" + top + b"]\n]"
    first = True
    for group in _batched(items, batch):
        formatted = msgspec.json.format(_joined(group, b"[[", b"]]"), indent=indent)
        if first:
            yield b"{\n" + top + b'"apiVersion": "v1",\n' + top + b'"kind": "List",\n' + top + b'"items": [\n'
            first = False
        else:
            yield b",\n"
        yield memoryview(formatted)[len(head):len(formatted) - len(tail)]
    if first:
        yield b"{\n" + top + b'"apiVersion": "v1",\n' + top + b'"kind": "List",\n' + top + b'"items": []\n}'
    else:
        yield b"\n" + top + b"]\n}"


def _joined(group: tuple[tuple[bytes | memoryview, ...], ...], before: bytes, after: bytes) -> bytes:
    """The items' pieces joined with commas between items, in one copy."""
    pieces: list[bytes | memoryview] = [before]
    for item in group:
        pieces += item
        pieces.append(b",")
    pieces[-1] = after
    return b"".join(pieces)


def _batched(values: Iterable[Any], size: int) -> Iterator[tuple[Any, ...]]:
    it = iter(values)
    while group := tuple(itertools.islice(it, size)):
        yield group
