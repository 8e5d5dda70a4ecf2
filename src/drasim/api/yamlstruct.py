"""Block YAML of drasim's objects straight from their structs: `encode_object`'s text without building its dicts.

A writer function per struct class and indent is generated once: the fields' order, wire keys, defaults and
line prefixes are fixed per class and indent, so each field costs an attribute read, a test against its
default (what msgspec's omit_defaults tests: the default object itself, or an empty list/dict/set of such a
factory) and, for a string, one cached styling; a struct's lines are built into one string. Values that are not
strings, numbers, structs or lists (datetimes, quantities, dicts, anything else) are converted by
`msgspec.to_builtins` exactly as `encode_object` converts them, then written by the plain walk.
tests/api/test_yamlstruct.py compares the text with `encode_object`'s through the plain walk.
"""

from __future__ import annotations

import keyword
import types
import typing
from collections.abc import Callable, Collection
from datetime import UTC, datetime
from typing import Any

import msgspec

from drasim.api.encode import EMPTY_FACTORIES
from drasim.api.yamlemit import BlockWriter, Fallback

__all__ = ["StructWriter"]

Text = Callable[[Any], str]


def _omitted_test(default: Any, factory: Any, ns: dict[str, Any], i: int) -> str | None:
    """Python test that field `i`'s value `v` is written, or None when it always is."""
    if factory is not msgspec.NODEFAULT:
        if factory not in EMPTY_FACTORIES:
            return None
        ns[f"F{i}"] = factory
        return f"v or type(v) is not F{i}"
    if default is msgspec.NODEFAULT:
        return None
    if default is None:
        return "v is not None"
    ns[f"D{i}"] = default
    return f"v is not D{i}"


def _str_keys(d: dict[Any, Any]) -> bool:
    return all(type(k) is str for k in d)


def _is_struct(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, msgspec.Struct)


class StructWriter(BlockWriter):
    """A BlockWriter that also writes drasim objects (structs) as `encode_object` of them.

    `eligible(obj)`: whether `encode_object(obj)` is `apiVersion`, `kind`, then the struct's fields as msgspec
    encodes them (metadata always); other objects are written as `plain(obj)`. `identity`: per struct class,
    fields whose values replicas share by identity (a template's parts): their text is made once per value
    and indent (a class's own `YAML_SHARED` names more). `equal`: per struct class, fields whose values
    replicas hold equal though not shared: their text is made once per JSON of the value and indent (a dict
    with other keys than strings, which JSON makes strings, each time).
    """

    def __init__(self, shared: Collection[int], *, eligible: Callable[[Any], bool], plain: Callable[[Any], Any],
                 enc_hook: Callable[[Any], Any], identity: dict[type, frozenset[str]],
                 equal: dict[type, frozenset[str]]) -> None:
        super().__init__(shared)
        self.eligible = eligible
        self.to_plain = plain
        self.enc_hook = enc_hook
        self.json = msgspec.json.Encoder(enc_hook=enc_hook)
        self.identity = identity
        self.equal = equal
        # Per indent, per type: the writer of a struct's lines at that indent (None: not a struct).
        self.writers: dict[str, dict[type, Text | None]] = {}
        self.tops: dict[type, tuple[Text, str]] = {}  # an object's writer and its head (apiVersion, kind)
        # Styled, of UTC datetimes only: datetimes at one instant with other offsets are equal keys but
        # to_builtins writes them otherwise (its own offset each).
        self.stamps: dict[datetime, str] = {}

    def plain(self, doc: Any) -> Any:
        # Plain data (an empty dict, a list) among the documents is written as it is.
        return self.to_plain(doc) if hasattr(type(doc), "__struct_fields__") else doc

    def other(self, doc: Any) -> None:
        cls = type(doc)
        if not hasattr(cls, "__struct_fields__"):
            raise Fallback  # plain data that is not a non-empty dict (`{}`, a list): PyYAML's
        if not self.eligible(doc):
            plain = self.to_plain(doc)
            if type(plain) is not dict or not plain:
                raise Fallback
            self.mapping(plain, "", None)
            return
        found = self.tops.get(cls)
        if found is None:
            found = self.tops[cls] = (self._compile(cls, "", top=True),
                                      f"apiVersion: {self.scalar(doc.api_version)}\nkind: {self.scalar(doc.kind)}\n")
        top, head = found
        self.out.append(head + top(doc))

    def writer(self, cls: type, indent: str) -> Text | None:
        """The writer of `cls` structs' lines at `indent`, or None when `cls` is not a struct."""
        by_type = self.writers.get(indent)
        if by_type is None:
            by_type = self.writers[indent] = {}
        if cls in by_type:
            return by_type[cls]
        fn = self._compile(cls, indent) if hasattr(cls, "__struct_fields__") else None
        by_type[cls] = fn
        return fn

    def _compile(self, cls: type, indent: str, *, top: bool = False) -> Text:
        """Generated: the struct's lines at `indent` as one string, "" when msgspec would write `{}`.
        `top`: an object's, without apiVersion and kind (written before it) and with metadata always."""
        config = cls.__struct_config__  # type: ignore[attr-defined]
        if config.array_like or config.tag_field is not None:
            raise Fallback  # not a mapping of its fields: never one of drasim's kinds
        fields = msgspec.structs.fields(cls)
        if any(keyword.iskeyword(f.name) for f in fields):
            raise Fallback  # `o.<name>` in the generated code would not compile
        ns: dict[str, Any] = {"values": self.values, "scalar": self.scalar, "field": self.field, "memo": self.memo,
                              "structs": self.structs, "stamps": self.stamps, "stamp": self.stamp,
                              "strings": self.strings, "datetime": datetime, "UTC": UTC,
                              "enc": self.json.encode, "str_keys": _str_keys}
        # A class may name the fields its instances share by identity itself (sim.report.EventDocument).
        identity = self.identity.get(cls, frozenset()) | getattr(cls, "YAML_SHARED", frozenset())
        equal = self.equal.get(cls, frozenset())
        lines = ["def write(o):"]
        parts = []
        for i, f in enumerate(fields):
            if top and i < 2:
                continue
            pre = f"{indent}{self.key(f.encode_name)}:"
            ns[f"P{i}"] = pre
            forced = top and f.name == "metadata"
            test = None if forced or not config.omit_defaults else _omitted_test(f.default, f.default_factory, ns, i)
            if f.name in identity:
                ns[f"M{i}"] = {}  # id -> (value, text): the value kept, so its id is not reused
                value = (f"(m[1] if (m := M{i}.get(id(v))) is not None and m[0] is v "
                         f"else memo(v, P{i}, {indent!r}, M{i}, None))")
            elif f.name in equal:
                ns[f"M{i}"] = {}  # JSON -> text
                # JSON makes every key a string: a dict with other keys is not looked up (key b"": not kept).
                value = (f"(m if (j := (enc(v) if type(v) is not dict or str_keys(v) else b'')) "
                         f"and (m := M{i}.get(j)) is not None else memo(v, P{i}, {indent!r}, M{i}, j))")
            else:
                value = self._value_code(i, f.type, indent, ns)
            lines.append(f"    v = o.{f.name}")
            if test is None:
                lines.append(f"    a{i} = {value}")
            else:
                lines.append(f"    a{i} = ({value}) if {test} else ''")
            parts.append(f"{{a{i}}}")
        lines.append(f"    return f'{''.join(parts)}'")
        exec("\n".join(lines), ns)  # generated from the class's own field names
        fn: Text = ns["write"]
        return fn

    def _value_code(self, i: int, annotation: Any, indent: str, ns: dict[str, Any]) -> str:
        """Python expression of field `i`'s lines for its value `v`, specialised by the field's annotated type
        (a struct, a list of structs, a datetime, a dict of strings); a value of another type than annotated,
        and any other field, goes through `field`. Strings, most values, are written inline."""
        generic = f"field(v, P{i}, {indent!r})"
        string = f"f'{{P{i}}} {{values.get(v) or scalar(v)}}\\n' if type(v) is str else "
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(members) == 1:
            annotation = members[0]  # Optional[X]: None is written by the generic path
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is typing.Annotated:
            annotation = args[0]
            origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        inner = indent + "  "
        if _is_struct(annotation):
            ns[f"C{i}"] = annotation
            ns[f"W{i}"] = self._lazy(ns, f"W{i}", annotation, inner)
            written = f"(f'{{P{i}}}\\n{{t}}' if (t := W{i}(v)) else f'{{P{i}}} {{{{}}}}\\n')"
            return f"({written} if type(v) is C{i} else {generic})"
        if origin is list and len(args) == 1 and _is_struct(args[0]):
            ns[f"C{i}"] = args[0]
            ns[f"W{i}"] = self._lazy(ns, f"W{i}", args[0], inner)
            return f"(structs(v, P{i}, {indent!r}, C{i}, W{i}) if type(v) is list and v else {generic})"
        if annotation is int:  # an int's text is str(int), as `scalar` writes it
            return f"(f'{{P{i}}} {{v}}\\n' if type(v) is int else {generic})"
        if annotation is datetime:
            return (f"(f'{{P{i}}} {{t}}\\n' if type(v) is datetime and "
                    f"(t := (v.tzinfo is UTC and stamps.get(v)) or stamp(v)) else {generic})")
        if origin is dict and args == (str, str):
            return f"(strings(v, P{i}, {indent!r}) if type(v) is dict and v else {generic})"
        return f"({string}{generic})"

    def _lazy(self, ns: dict[str, Any], name: str, cls: type, indent: str) -> Text:
        """A stand-in for the writer of `cls` at `indent` that makes it on first use and puts it in its place
        (made eagerly, every class reachable from a field would be compiled up front)."""
        def first_use(v: Any) -> str:
            write = self.writer(cls, indent)
            assert write is not None  # a struct class
            ns[name] = write
            return write(v)
        return first_use

    def structs(self, values: list[Any], pre: str, indent: str, cls: type, write: Text) -> str:
        """A non-empty list of `cls` structs after its key `pre` (items of another type by `items`)."""
        head = indent + "- "
        cut = len(head)
        parts = [f"{pre}\n"]
        for v in values:
            if type(v) is not cls:
                return f"{pre}\n{self.items(values, indent)}"
            text = write(v)
            # The item's first line is its mapping's first line, "- " in place of the indent's last two.
            parts.append(head + text[cut:] if text else f"{head}{{}}\n")
        return "".join(parts)

    def stamp(self, v: datetime) -> str:
        """A datetime as to_builtins writes it (RFC 3339), styled: memoised when UTC (objects share few instants;
        only there does an equal datetime have the same text)."""
        styled = self.scalar(msgspec.to_builtins(v))
        assert styled is not None  # a string
        if v.tzinfo is UTC:
            self.stamps[v] = styled
        return styled

    def strings(self, v: dict[Any, Any], pre: str, indent: str) -> str:
        """A non-empty dict of strings after its key `pre` (anything else by `field`)."""
        inner = indent + "  "
        values, key, scalar = self.values, self.key, self.scalar
        parts = [f"{pre}\n"]
        for k, x in v.items():
            if type(x) is not str or type(k) is not str:
                return self.field(v, pre, indent)
            parts.append(f"{inner}{key(k)}: {values.get(x) or scalar(x)}\n")
        return "".join(parts)

    def field(self, v: Any, pre: str, indent: str) -> str:
        """The lines of a field's value that is not a string, after its key `pre` (`<indent><key>:`)."""
        t = type(v)
        if t is list:
            return f"{pre}\n{self.items(v, indent)}" if v else f"{pre} []\n"
        if t is int or t is bool or v is None:
            return f"{pre} {self.scalar(v)}\n"
        write = self.writer(t, indent + "  ")
        if write is not None:
            text = write(v)
            return f"{pre}\n{text}" if text else f"{pre} {{}}\n"
        plain = msgspec.to_builtins(v, enc_hook=self.enc_hook)
        s = self.scalar(plain)
        if s is not None:
            return f"{pre} {s}\n"
        start = len(self.out)
        self.out.append(f"{pre}\n")
        if type(plain) is dict:
            self.mapping(plain, indent + "  ", None)
        else:
            self.sequence(plain, indent, None)
        return self.cut(start)

    def items(self, values: list[Any], indent: str) -> str:
        """A non-empty list as a mapping's value at `indent` (its items not indented)."""
        head = indent + "- "
        inner = indent + "  "
        parts = []
        for v in values:
            t = type(v)
            if t is str:
                parts.append(f"{head}{self.values.get(v) or self.scalar(v)}\n")
                continue
            write = self.writer(t, inner)
            if write is not None:
                text = write(v)
                # The item's first line is its mapping's first line, "- " in place of the indent's last two.
                parts.append(head + text[len(head):] if text else f"{head}{{}}\n")
                continue
            plain = msgspec.to_builtins(v, enc_hook=self.enc_hook)
            s = self.scalar(plain)
            if s is not None:
                parts.append(f"{head}{s}\n")
                continue
            start = len(self.out)
            if type(plain) is dict:
                self.mapping(plain, inner, head)
            else:
                self.sequence(plain, inner, head)
            parts.append(self.cut(start))
        return "".join(parts)

    def cut(self, start: int) -> str:
        """The pieces the plain walk appended from `start`, taken out as one string."""
        text = "".join(self.out[start:])
        del self.out[start:]
        return text

    def memo(self, v: Any, pre: str, indent: str, table: dict[Any, Any], key: bytes | None) -> str:
        """The text of a field whose text replicas repeat, put in its field's `table`: by JSON `key`, or by
        id with the value (kept alive, so its id is not reused) when `key` is None; not kept when `key` is b""."""
        text = f"{pre} {self.values.get(v) or self.scalar(v)}\n" if type(v) is str else self.field(v, pre, indent)
        if key is None:
            table[id(v)] = (v, text)
        elif key:
            table[key] = text
        return text
