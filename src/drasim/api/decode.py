"""Decode loaded data (dicts from YAML/JSON, or JSON bytes) into typed drasim objects, with precise errors."""

from __future__ import annotations

import contextlib
import copy
import gc
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec

from drasim.api import scheduling
from drasim.api.convert import CONVERTIBLE_VERSIONS, V1, original_path, to_v1
from drasim.api.kinds import KINDS, KubeObject, split_api_version
from drasim.api.meta import INT32_MIN, INT64_MIN
from drasim.api.quantity import quantity_dec_hook
from drasim.errors import InputError

__all__ = ["DecodeResult", "decode_as", "decode_documents", "decode_json_bytes", "decode_json_documents",
           "decode_object", "gc_paused", "kind_type"]

RESOURCE_GROUP = "resource.k8s.io"
# Versions of the other groups drasim reads; everything else is skipped with a warning.
_SERVED_VERSIONS = {"": ("v1",), "apps": ("v1",), "batch": ("v1",), RESOURCE_GROUP: CONVERTIBLE_VERSIONS,
                    scheduling.GROUP: ("v1alpha2",)}
# How many `field: null` entries one object may have (each is dropped and decoding retried, see _convert).
_MAX_NULL_FIXES = 1000


@dataclass
class DecodeResult:
    """Objects in input order, and warnings (skipped kinds) as complete sentences naming the source."""

    objects: list[KubeObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # The apiVersion each object was written in (parallel to `objects`; objects hold v1 after conversion).
    api_versions: list[str] = field(default_factory=list)
    # resource.k8s.io documents drasim cannot read (v1alpha2, classic-DRA kinds): (object ref, apiVersion,
    # kind). Admission rejects them as the API server of the release would.
    unserved: list[tuple[str, str, str]] = field(default_factory=list)
    # With `keep_going`, documents (and List items) that do not decode are recorded here, each naming its
    # file, document and field path, and the next one is read, as `kubectl apply` goes on past a bad object.
    # Without it the first one is raised.
    errors: list[InputError] = field(default_factory=list)
    # drasim's own documents (apiVersion drasim.dev/*: Timeline, ClusterInfo), raw, with where they stand in the
    # stream (`document 2`, or None): the commands that use them take them from here, so input is read once.
    own: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)
    keep_going: bool = False

    def extend(self, other: DecodeResult) -> None:
        self.objects.extend(other.objects)
        self.warnings.extend(other.warnings)
        self.api_versions.extend(other.api_versions)
        self.unserved.extend(other.unserved)
        self.errors.extend(other.errors)
        self.own.extend(other.own)

    def append(self, obj: KubeObject, api_version: str) -> None:
        self.objects.append(obj)
        self.api_versions.append(api_version)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many container objects.

    Decoding allocates millions of dicts and lists that trigger GC passes over an ever-growing heap: with
    the collector running, 10,000 slices take ~4x as long. The objects decoded hold no cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def kind_type(api_version: str, kind: str) -> type | None:
    """The struct type for `apiVersion`/`kind`, or None when drasim does not model it (any served version)."""
    group, version = split_api_version(api_version)
    if version not in _SERVED_VERSIONS.get(group, ()):
        return None
    return KINDS.get(group, {}).get(kind)


def decode_object(data: dict[str, Any], *, source: str, warnings: list[str] | None = None,
                  where: str | None = None, unserved: list[tuple[str, str, str]] | None = None
                  ) -> KubeObject | None:
    """Decode one object (any version drasim reads, converted to v1).

    Returns None for kinds drasim does not model, appending a warning to `warnings` (when given). Raises
    `InputError` naming `source`, the object (`kind/namespace/name`, prefixed by `where`, e.g. `items[3]`)
    and the field path. Lists (`kind: List`, `*List`) are rejected here: use `decode_documents`.
    """
    if not isinstance(data, dict):
        raise InputError(f"expected a Kubernetes object (a mapping), got {_type_name(data)}",
                         source=source, obj=where)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    ref = _ref(data, where)
    if not isinstance(kind, str) or not kind:
        raise InputError('missing "kind"' if kind in (None, "") else f'"kind" must be a string, got {kind!r}',
                         source=source, obj=ref)
    if not isinstance(api_version, str) or not api_version:
        raise InputError('missing "apiVersion"' if api_version in (None, "")
                         else f'"apiVersion" must be a string, got {api_version!r}', source=source, obj=ref)
    if _is_list(data):
        raise InputError(f"{kind} holds several objects: decode it with decode_documents",
                         source=source, obj=ref)
    cls = kind_type(api_version, kind)
    if unserved is not None and _unserved(api_version, kind, cls):
        unserved.append((ref, api_version, kind))
        return None
    if cls is None:
        # drasim's own documents (Timeline, ClusterInfo) are read by the commands that use them.
        if warnings is not None and not api_version.startswith(DRASIM_GROUP + "/") and \
                (api_version, kind) not in _WRITTEN_BY_DRASIM:
            warnings.append(f"{source}: {ref}: skipped: {_why_unknown(api_version, kind)}")
        return None
    converted = to_v1(data, source=source, obj=ref)
    obj: KubeObject = _convert(converted, cls, source=source, ref=ref, api_version=api_version, kind=kind)
    return obj


def decode_documents(docs: Iterable[Any], *, source: str, label: str | None = None,
                     keep_going: bool = False) -> DecodeResult:
    """Decode loaded documents in order: null documents are skipped, Lists and arrays are expanded.

    `kind: List` and the typed lists `kubectl get -o yaml/json` prints (`ResourceSliceList`...) are both
    read; items of a typed list that lack `apiVersion`/`kind` (raw API responses) inherit them from the list.
    Errors name a document without a name of its own by its position (`document 3`), list items by index;
    with `label` (e.g. `objects`) every document is named by its index in that list (`objects[2]`).
    With `keep_going`, a document that does not decode is recorded in `errors` (named by its position in a
    stream of several) and the next one read.
    """
    result = DecodeResult(keep_going=keep_going)
    docs = docs if isinstance(docs, list) else list(docs)
    with gc_paused():
        _decode_all(result, docs, source=source, label=label)
    return result


def _decode_all(result: DecodeResult, docs: list[Any], *, source: str, label: str | None) -> None:
    for i, doc in enumerate(docs):
        _decode_nth(result, doc, i, len(docs), source=source, label=label)


def _decode_nth(result: DecodeResult, doc: Any, i: int, count: int, *, source: str, label: str | None) -> None:
    """Decode document `i` of `count` (a stream's), naming it in errors as `decode_documents` says."""
    if doc is None:
        return
    named = isinstance(doc, dict) and not _is_list(doc) and _name_of(doc)
    if label is not None:
        where: str | None = f"{label}[{i}]"
    else:
        where = f"document {i + 1}" if count > 1 and not named else None
    failed, owned = len(result.errors), len(result.own)
    _decode_into(result, doc, source=source, where=where)
    if count > 1 and label is None:
        for err in result.errors[failed:]:  # name the document of a stream even when the object has a name
            if not (err.obj or "").startswith("document "):
                err.obj = _join(f"document {i + 1}", err.obj or "")
        result.own[owned:] = [(f"document {i + 1}", d) for _, d in result.own[owned:]]


def _decode_into(result: DecodeResult, doc: Any, *, source: str, where: str | None) -> None:
    """Decode `doc` (an object, a List or an array of objects) into `result`; `where` prefixes error refs.
    With `result.keep_going` an object that does not decode is recorded and the next one read."""
    if not result.keep_going:
        _decode_doc(result, doc, source=source, where=where)
        return
    try:
        _decode_doc(result, doc, source=source, where=where)
    except InputError as err:
        result.errors.append(err)


def _decode_doc(result: DecodeResult, doc: Any, *, source: str, where: str | None) -> None:
    if isinstance(doc, list):
        for j, item in enumerate(doc):
            _decode_into(result, item, source=source, where=_join(where, f"[{j}]"))
        return
    if not (isinstance(doc, dict) and _is_list(doc)):
        obj = decode_object(doc, source=source, warnings=result.warnings, where=where, unserved=result.unserved)
        if obj is not None:
            result.append(obj, doc["apiVersion"])
        elif str(doc.get("apiVersion")).startswith(DRASIM_GROUP + "/"):
            result.own.append((where, doc))
        return
    items = doc.get("items")
    if items is None:
        return
    if not isinstance(items, list):
        raise InputError(f"expected array, got {_type_name(items)}", source=source, obj=_ref(doc, where),
                         path="items")
    inherit = _item_defaults(doc)
    for j, item in enumerate(items):
        if isinstance(item, dict) and inherit:
            item = {**inherit, **item}
        _decode_into(result, item, source=source, where=_join(where, f"items[{j}]"))


def _join(where: str | None, part: str) -> str:
    return f"{where} {part}" if where else part


# --- fast JSON path -------------------------------------------------------------------------------

class _Head(msgspec.Struct):
    """The envelope of any JSON object: enough to pick a typed decoder (other fields are skipped unparsed)."""

    apiVersion: Any = None  # the wire name: this struct is not renamed
    kind: Any = None
    items: list[msgspec.Raw] | None = None


_head_decoder = msgspec.json.Decoder(_Head)
# `"apiVersion": "...", "kind": "..."` opening an object, as kubectl and drasim write them: read from the first
# bytes of a list item, the typed decoder is picked without the envelope's pass over the whole item (escapes,
# other orders and anything else go through `_Head`). Only for items: the split that found them has checked
# the syntax of the whole input already, so errors are the same either way.
_ENVELOPE = re.compile(rb'\{[ \t\r\n]*"apiVersion"[ \t\r\n]*:[ \t\r\n]*"([ !#-\[\]-~]*)"[ \t\r\n]*,'
                       rb'[ \t\r\n]*"kind"[ \t\r\n]*:[ \t\r\n]*"([ !#-\[\]-~]*)"[ \t\r\n]*[,}]')
_ENVELOPE_PEEK = 200
_raw_array_decoder = msgspec.json.Decoder(list[msgspec.Raw])
_typed_decoders: dict[type, msgspec.json.Decoder[Any]] = {}


def decode_json_bytes(data: bytes, *, source: str, keep_going: bool = False,
                      minified: bytes | None = None) -> DecodeResult:
    """Decode a JSON document (an object, a List or an array of objects) straight into typed objects.

    v1 and v1beta2 objects are decoded by typed msgspec decoders without building dicts (10,000 slices in
    well under a second); other versions and anything a typed decoder rejects go through `decode_object`,
    which gives the same result or the same precise error. With `keep_going`, objects that do not decode are
    recorded in `errors` (the JSON must still parse). `minified`: the data as `msgspec.json.format(indent=-1)`
    writes it (tokens as written, no whitespace between them), read instead: the same values in fewer bytes
    (76 of the 5,000-node fleet's 168 MB: 0.15 CPU-s less); msgspec's errors there are raised from the data,
    at their place in it.
    """
    if minified is not None:
        try:
            return _decode_json_text(minified, keep_going=keep_going, source=source)
        except (msgspec.DecodeError, UnicodeDecodeError):
            pass  # the data's own decode raises it with its line and column
    try:
        return _decode_json_text(data, keep_going=keep_going, source=source)
    except msgspec.DecodeError as exc:
        raise json_syntax_error(exc, data, source=source) from None
    except UnicodeDecodeError:
        # msgspec < 0.20 lets invalid UTF-8 in a string escape as Python's error; newer releases raise this
        # DecodeError text, so the answer is the same under every msgspec the bounds allow.
        raise InputError("invalid JSON: Invalid UTF-8 encoded string", source=source) from None


def _decode_json_text(data: bytes, *, source: str, keep_going: bool) -> DecodeResult:
    """`decode_json_bytes` of one text, msgspec's syntax errors raised as they are."""
    result = DecodeResult(keep_going=keep_going)
    stripped = data.lstrip()
    if not stripped:
        return result
    # Syntax errors surface on the first, whole-input parse, so their byte offsets are the file's.
    with gc_paused():
        if stripped[:1] == b"[":
            for i, raw in enumerate(_raw_array_decoder.decode(data)):
                _json_item(result, raw, source=source, where=f"[{i}]", inherit=None)
        else:
            _json_item(result, msgspec.Raw(data), source=source, where=None, inherit=None)
    return result


def decode_json_documents(data: bytes | bytearray | memoryview, *, stream: bool, source: str,
                          load: Callable[[bytes], Any], keep_going: bool = False) -> DecodeResult:
    """`decode_documents` of a stream's documents written as JSON (an array of them when `stream`, else the one
    document): a document whose first bytes name the apiVersion and kind of a v1/v1beta2 kind drasim models
    goes straight to its typed decoder, any other (or one the decoder rejects) is read by `load` (the stream's
    own scalar rules) and decoded as a dict, with the same names in errors. Raises `msgspec.DecodeError` when
    `data` is not JSON."""
    result = DecodeResult(keep_going=keep_going)
    with gc_paused():
        raws = _raw_array_decoder.decode(data) if stream else [msgspec.Raw(memoryview(data))]
        for i, raw in enumerate(raws):
            if _typed_by_envelope(result, raw):
                continue
            _decode_nth(result, load(bytes(memoryview(raw))), i, len(raws), source=source, label=None)
    return result


def json_syntax_error(exc: msgspec.DecodeError, data: bytes, *, source: str) -> InputError:
    """An `InputError` for malformed JSON, with the line and column msgspec's byte offset points at."""
    msg = str(exc)
    m = re.search(r"\(byte (\d+)\)$", msg)
    if m:
        offset = int(m.group(1))
        line = data.count(b"\n", 0, offset) + 1
        column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
        msg = f"{msg[:m.start()].rstrip()} at line {line}, column {column}"
    msg = msg.replace("JSON is malformed: ", "")
    return InputError(f"invalid JSON: {msg}", source=source)


def _typed_by_envelope(result: DecodeResult, raw: msgspec.Raw) -> bool:
    """Decode `raw` typed when its first bytes name the apiVersion and kind of a single (not List) object
    drasim models; False leaves it to the caller's general path."""
    envelope = _ENVELOPE.match(bytes(memoryview(raw)[:_ENVELOPE_PEEK]))
    return envelope is not None and not envelope.group(2).endswith(b"List") and _typed_item(
        result, raw, envelope.group(1).decode(), envelope.group(2).decode())


def _json_item(result: DecodeResult, raw: msgspec.Raw, *, source: str, where: str | None,
               inherit: dict[str, str] | None) -> None:
    if where is not None and _typed_by_envelope(result, raw):
        return
    try:
        head: _Head | None = _head_decoder.decode(raw)
    except msgspec.ValidationError:  # not an object, or `items` is not an array: the dict path says so
        head = None
    api_version = kind = None
    if head is not None:
        api_version = head.apiVersion if head.apiVersion is not None else (inherit or {}).get("apiVersion")
        kind = head.kind if head.kind is not None else (inherit or {}).get("kind")
    if isinstance(api_version, str) and isinstance(kind, str):
        assert head is not None
        if kind.endswith("List") and head.items is not None:
            defaults = _item_defaults({"apiVersion": api_version, "kind": kind}) or None
            if defaults is not None and _typed_list(result, raw, api_version, defaults["kind"]):
                return
            for j, item in enumerate(head.items):
                _json_item(result, item, source=source, where=_join(where, f"items[{j}]"), inherit=defaults)
            return
        if _typed_item(result, raw, api_version, kind):
            return
    doc = msgspec.json.decode(raw)
    if isinstance(doc, dict) and inherit:
        doc = {**inherit, **doc}
    _decode_into(result, doc, source=source, where=where)


def _typed_item(result: DecodeResult, raw: msgspec.Raw, api_version: str, kind: str) -> bool:
    """Decode a v1/v1beta2 object of a kind drasim models with its typed decoder into `result`; False (nothing
    added) for other versions and kinds, and for anything the decoder rejects: the dict path reports it with
    the object's name and the field path."""
    cls = kind_type(api_version, kind)
    group, version = split_api_version(api_version)
    if cls is None or version not in ("v1", "v1beta2"):
        return False
    decoder = _typed_decoders.get(cls)
    if decoder is None:
        decoder = _typed_decoders[cls] = msgspec.json.Decoder(cls, dec_hook=quantity_dec_hook, strict=True)
    try:
        obj = decoder.decode(raw)
    except msgspec.ValidationError:
        return False
    obj.kind = kind  # items of typed lists may lack their own apiVersion/kind
    obj.api_version = V1 if group == RESOURCE_GROUP else api_version
    result.append(obj, api_version)
    return True


_typed_list_decoders: dict[type, msgspec.json.Decoder[Any]] = {}


def _typed_list_decoder(item_type: type) -> msgspec.json.Decoder[Any]:
    """A decoder reading an `XList` document's items as `item_type` in one pass (other fields skipped)."""
    decoder = _typed_list_decoders.get(item_type)
    if decoder is None:
        fields: list[Any] = [("items", list[item_type])]  # type: ignore[valid-type]
        list_type = msgspec.defstruct(f"{item_type.__name__}List", fields)
        decoder = _typed_list_decoders[item_type] = msgspec.json.Decoder(
            list_type, dec_hook=quantity_dec_hook, strict=True)
    return decoder


def _typed_list(result: DecodeResult, raw: msgspec.Raw, api_version: str, kind: str) -> bool:
    """Decode a typed v1/v1beta2 list in one pass; False (nothing added) when any item needs a closer look."""
    item_type = kind_type(api_version, kind)
    group, version = split_api_version(api_version)
    if item_type is None or version not in ("v1", "v1beta2"):
        return False
    try:
        items = _typed_list_decoder(item_type).decode(raw).items
    except msgspec.ValidationError:
        return False
    default_version = next(f.default for f in msgspec.structs.fields(item_type) if f.name == "api_version")
    if any(o.kind != kind or o.api_version not in (api_version, default_version) for o in items):
        return False  # an item of another kind or version: the per-item path handles it
    new_version = V1 if group == RESOURCE_GROUP else api_version
    for o in items:
        result.api_versions.append(api_version)  # items without their own inherit the list's
        o.api_version = new_version
    result.objects.extend(items)
    return True


# --- typed conversion and error reporting ---------------------------------------------------------

T = typing.TypeVar("T")


def decode_as(data: Any, type_: type[T], *, source: str, obj: str | None = None) -> T:
    """Convert loaded data to any msgspec type with decode_object's rules and error messages."""
    result: T = _convert(data, type_, source=source, ref=obj)
    return result


def _convert(data: Any, cls: Any, *, source: str, ref: str | None, api_version: str = "",
             kind: str = "") -> Any:
    """msgspec.convert with strict types (YAML `count: "2"` is an error; quantities go through the hook).

    Go's JSON decoder treats `field: null` as "not set"; msgspec does not, so a null that msgspec rejects is
    dropped and the object decoded again (only on this error path: clean input pays nothing).
    """
    copied = False
    for _ in range(_MAX_NULL_FIXES):
        try:
            return msgspec.convert(data, type=cls, strict=True, dec_hook=quantity_dec_hook)
        except msgspec.ValidationError as exc:
            message, tokens = _parse_error(str(exc))
            resolved = _resolve(cls, data, tokens)
            if message.endswith(", got `null`") and resolved and resolved[-1][0] == "field":
                if not copied:
                    data, copied = copy.deepcopy(data), True
                parent = _follow(data, resolved[:-1])
                if isinstance(parent, dict) and parent.get(resolved[-1][1], 0) is None:
                    del parent[resolved[-1][1]]
                    continue
            text = _out_of_range(message, cls, data, resolved, api_version, kind) or _humanize(message, resolved)
            path = original_path(api_version, kind, _render(resolved)) or None
            raise InputError(text, source=source, obj=ref, path=path) from None
    raise InputError("too many null fields", source=source, obj=ref)


_PATH_RE = re.compile(r" - at `(?:(?P<key>[^`]*)` in `)?(?P<path>\$[^`]*)`$", re.DOTALL)
_TOKEN_RE = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]")

Token = tuple[str, Any]  # ("field", wire name) | ("index", int) | ("key", map key)


def _parse_error(text: str) -> tuple[str, list[Token]]:
    m = _PATH_RE.search(text)
    if not m:
        return text, []
    tokens: list[Token] = []
    for t in _TOKEN_RE.finditer(m.group("path")[1:]):
        if t.group(1) is not None:
            tokens.append(("field", t.group(1)))
        elif t.group(2) is not None:
            tokens.append(("index", int(t.group(2))))
        else:
            tokens.append(("key", None))
    return text[:m.start()], tokens


def _humanize(message: str, resolved: list[Token]) -> str:
    m = re.fullmatch(r"Object contains unknown field `(.*)`", message)
    if m:
        resolved.append(("field", m.group(1)))
        return f'unknown field "{m.group(1)}"'
    m = re.fullmatch(r"Object missing required field `(.*)`", message)
    if m:
        resolved.append(("field", m.group(1)))
        return f'missing required field "{m.group(1)}"'
    m = re.fullmatch(r"Expected `(.*)`, got `(.*)`", message)
    if m:
        expected = m.group(1).removesuffix(" | null")
        return f"expected {expected}, got {m.group(2)}"
    if message[:1].isupper() and message[1:2].islower():  # msgspec's own sentences; dec_hook text is kept
        return message[0].lower() + message[1:]
    return message


# msgspec's words for a number an integer field cannot hold: out of its range, or not whole (`1.5`, or a YAML
# integer past uint64, which Go's YAML reads as a float too).
_NUMBER_RE = re.compile(r"Expected `int` [<>]= -?\d+|Expected `int(?: \| null)?`, got `float`")
_GO_INT = {INT64_MIN: "int64", INT32_MIN: "int32"}  # by the field's lower bound (api.meta.Int64, Int32)


def _out_of_range(message: str, cls: Any, data: Any, resolved: list[Token], api_version: str,
                  kind: str) -> str | None:
    """The API server's words for a number its field's Go integer type cannot hold (sigs.k8s.io/json's
    UnmarshalTypeError inside apiserver's transformDecodeError, k8s.io/apiserver handlers/rest.go, v1.36):
    `KIND in version "V" cannot be handled as a KIND: json: cannot unmarshal number N into Go struct field
    STRUCT.FIELD.PATH of type int64`. FIELD.PATH is the JSON names of struct fields from the object's root
    (no list indices, no map keys); STRUCT is the Go type holding the last one."""
    if not _NUMBER_RE.fullmatch(message):
        return None
    tp, holder = cls, cls
    for token, value in resolved:  # the struct type that holds the last field
        tp = _unwrap_optional(tp)
        if token == "field":
            holder, tp = tp, _field_types(tp).get(value, Any)
        else:
            args = typing.get_args(tp)
            tp = args[-1] if args else Any
    tp = _unwrap_optional(tp)
    bounds = [m.ge for m in getattr(tp, "__metadata__", ()) if isinstance(m, msgspec.Meta) and isinstance(m.ge, int)]
    go_type = _GO_INT.get(bounds[0]) if bounds else None
    if go_type is None:  # an integer field without a Go type: msgspec's words
        return None
    struct = getattr(holder, "__name__", "")
    if struct == "WorkloadSpec":  # drasim's one struct for the specs of Deployment, Job, ...
        struct = f"{kind}Spec"
    elif struct == "ExactDeviceRequest" and api_version.endswith(("/v1beta1", "/v1alpha3")):
        struct = "DeviceRequest"  # the count of a v1beta1 request sits in the request itself
    fields = original_path(api_version, kind, _render([t for t in resolved if t[0] != "key"]))
    field = re.sub(r"\[\d+\]", "", fields)
    text = (f"json: cannot unmarshal number {_follow(data, resolved)} into Go struct field {struct}.{field} "
            f"of type {go_type}")
    if not (kind and api_version):
        return text
    return f'{kind} in version "{split_api_version(api_version)[1]}" cannot be handled as a {kind}: {text}'


def _render(tokens: list[Token]) -> str:
    parts: list[str] = []
    for kind, value in tokens:
        simple_key = kind == "key" and isinstance(value, str) and _SIMPLE_KEY.fullmatch(value)
        if kind == "index" or (kind == "key" and not simple_key):
            parts.append(f"[{value}]")
        else:
            parts.append(f".{value}" if parts else str(value))
    return "".join(parts)


_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def _resolve(tp: Any, data: Any, tokens: list[Token]) -> list[Token]:
    """Replace msgspec's `[...]` (some map value) by the key whose value fails, walking type and data."""
    out: list[Token] = []
    for kind, value in tokens:
        tp = _unwrap_optional(tp)
        if kind == "field":
            out.append((kind, value))
            tp = _field_types(tp).get(value, Any)
            data = data.get(value) if isinstance(data, dict) else None
        elif kind == "index":
            out.append((kind, value))
            args = typing.get_args(tp)
            tp = args[0] if typing.get_origin(tp) is list and args else Any
            data = data[value] if isinstance(data, list) and value < len(data) else None
        else:
            args = typing.get_args(tp)
            vt = args[1] if typing.get_origin(tp) is dict and len(args) == 2 else Any
            key = _failing_key(data, vt)
            out.append(("key", key))
            data = data.get(key) if isinstance(data, dict) else None
            tp = vt
    return out


def _failing_key(data: Any, value_type: Any) -> Any:
    if not isinstance(data, dict):
        return "..."
    for k, v in data.items():
        if not isinstance(k, str):
            return k
        try:
            msgspec.convert(v, type=value_type, strict=True, dec_hook=quantity_dec_hook)
        except msgspec.ValidationError:
            return k
    return "..."


def _follow(data: Any, tokens: list[Token]) -> Any:
    for _, value in tokens:
        if isinstance(data, dict):
            data = data.get(value)
        elif isinstance(data, list) and isinstance(value, int) and value < len(data):
            data = data[value]
        else:
            return None
    return data


def _unwrap_optional(tp: Any) -> Any:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else Any
    return tp


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(tp: Any) -> dict[str, Any]:
    if not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)):
        return {}
    cached = _FIELD_TYPES.get(tp)
    if cached is None:
        cached = _FIELD_TYPES[tp] = {f.encode_name: f.type for f in msgspec.structs.fields(tp)}
    return cached


# --- helpers --------------------------------------------------------------------------------------

def _is_list(data: dict[str, Any]) -> bool:
    kind = data.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in data


def _item_defaults(list_doc: dict[str, Any]) -> dict[str, str]:
    """apiVersion/kind that items of a typed list (`ResourceSliceList`) get when they lack their own."""
    kind, api_version = list_doc.get("kind"), list_doc.get("apiVersion")
    if not isinstance(kind, str) or kind == "List" or not isinstance(api_version, str):
        return {}
    return {"apiVersion": api_version, "kind": kind.removesuffix("List")}


def _name_of(data: dict[str, Any]) -> str:
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _ref(data: Any, where: str | None) -> str:
    """`kind/namespace/name` as errors print it, prefixed by `where` (`items[3]`) when given."""
    if not isinstance(data, dict):
        return where or ""
    kind = data.get("kind") if isinstance(data.get("kind"), str) else "object"
    meta = data.get("metadata")
    name = _name_of(data)
    ns = meta.get("namespace") if isinstance(meta, dict) and isinstance(meta.get("namespace"), str) else ""
    ref = f"{kind}/{ns}/{name}" if ns and name else f"{kind}/{name}" if name else str(kind)
    return f"{where} {ref}" if where else ref


DRASIM_GROUP = "drasim.dev"
# Kinds drasim writes in its own output (`simulate -o yaml` lists Events) but does not read: skipped without
# a warning, so drasim's output reads back quietly (`kubectl get events -o yaml` gives either version).
_WRITTEN_BY_DRASIM = frozenset({("v1", "Event"), ("events.k8s.io/v1", "Event")})


def _unserved(api_version: str, kind: str, cls: type | None) -> bool:
    """A resource.k8s.io document no release drasim simulates (1.34+) serves: not decoded, admission rejects
    it (v1alpha2, classic-DRA kinds, v1alpha3 other than DeviceTaintRule)."""
    group, version = split_api_version(api_version)
    if group != RESOURCE_GROUP:
        return False
    return cls is None or (version == "v1alpha3" and kind != "DeviceTaintRule")


def _why_unknown(api_version: str, kind: str) -> str:
    group = split_api_version(api_version)[0]
    if group in _SERVED_VERSIONS and kind in KINDS.get(group, {}):
        served = ", ".join((f"{group}/{v}" if group else v) for v in _SERVED_VERSIONS[group])
        return f"API version {api_version} of {kind} is not supported (drasim reads {served})"
    return f"kind {kind} ({api_version}) is not used by drasim"


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, str)):
        return type(value).__name__
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__
