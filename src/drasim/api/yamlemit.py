"""Block-style YAML for plain data (dict, list, str, int, bool, None): PyYAML's bytes at a fraction of its cost.

PyYAML's dumper builds a node per scalar and resolves every string against its implicit resolvers in
Python, which dominates a 20 MB dump. Here each distinct string is styled once (identifiers go plain
directly; anything else is asked of PyYAML itself and remembered), and the layout is written by one
walk that mirrors PyYAML's block emitter (two-space indent, sequences inside mappings not indented).
Whatever this walk does not mirror exactly (multi-line scalars, long or complex keys, floats, other
types) makes `dump_all` hand the whole input to PyYAML, so the output is always PyYAML's. A subclass of
`BlockWriter` writes documents of other types (api.yamlstruct: drasim's objects from their structs).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

import yaml

__all__ = ["BlockWriter", "Fallback", "dump_all"]

_Dumper: type = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_OPTIONS: dict[str, Any] = {"sort_keys": False, "default_flow_style": False, "allow_unicode": True,
                            "width": 1 << 16}
# Strings PyYAML writes plain without asking: a letter, then letters, digits and `_ . / -`, except the
# YAML 1.1 booleans and nulls its resolver would read back as something else.
_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*").fullmatch
# Also plain, as values: words of those characters (the first starting with a letter) joined by single spaces,
# which no implicit resolver reads as anything but a string (an event's message), and UUIDs (the hyphens keep
# even an all-digit one from reading as a number or a date). tests/api/test_yamlemit.py checks both rules
# against PyYAML on generated strings.
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*(?: [A-Za-z0-9_./-]+)+").fullmatch
# Such words where some are joined by ": " instead (an event's "Created pod: NAME"): the ": " rules out plain,
# and printable ASCII on one line always allows single quotes, which is PyYAML's next choice (emitter.py
# analyze_scalar/choose_scalar_style); no apostrophe in the alphabet, so nothing to double. Short enough that
# PyYAML never splits the line at its width.
_COLON_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*(?::? [A-Za-z0-9_./-]+)+").fullmatch
_COLON_WORDS_MAX = 4096
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").fullmatch
_RESERVED = frozenset(
    w for word in ("yes", "no", "true", "false", "on", "off", "null") for w in (word, word.title(), word.upper()))
# PyYAML writes a key longer than this in the complex `? key` form.
_SIMPLE_KEY_MAX = 100


class _NoAliasDumper(_Dumper):
    """PyYAML's dumper without anchors and aliases: a shared part is written out wherever it occurs."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


class Fallback(Exception):
    """The input has something the fast walk does not mirror; PyYAML dumps it instead."""


def _styled(text: str, *, key: bool) -> str:
    """`text` as PyYAML writes it in a block mapping key or value position (single line), or Fallback."""
    out: str = yaml.dump({text: None} if key else {"k": text}, Dumper=_Dumper, **_OPTIONS)
    if key:
        if out.startswith("? ") or not out.endswith(": null\n"):
            raise Fallback
        styled = out[: -len(": null\n")]
    else:
        styled = out[len("k: "):-1]
    if "\n" in styled:
        raise Fallback
    return styled


class BlockWriter:
    """One dump: caches of styled strings and the output pieces."""

    def __init__(self, shared: Collection[int] = ()) -> None:
        # ids of collections several documents hold (template parts): each is written once per indent and
        # its text reused. The caller keeps them alive for the dump, so an id is not reused meanwhile.
        self.shared = shared
        self.texts: dict[tuple[int, str], str] = {}
        self.keys: dict[str, str] = {}
        self.values: dict[str, str] = {}
        self.out: list[str] = []
        # Per indent, key -> "<indent><styled key>:". Objects of one kind repeat the same keys at the same
        # depths, so each mapping line costs one lookup instead of styling and formatting its key again.
        self.prefixes: dict[str, dict[Any, str]] = {}

    def key(self, text: Any) -> str:
        styled = self.keys.get(text)
        if styled is None:
            if type(text) is not str or len(text) >= _SIMPLE_KEY_MAX:
                raise Fallback
            styled = text if _PLAIN(text) and text not in _RESERVED else _styled(text, key=True)
            self.keys[text] = styled
        return styled

    def scalar(self, value: Any) -> str | None:
        """The styled scalar, "{}"/"[]" for empty collections, or None for a block collection."""
        t = type(value)
        if t is str:
            styled = self.values.get(value)
            if styled is None:
                plain = (_PLAIN(value) and value not in _RESERVED) or _WORDS(value) or _UUID(value)
                if plain:
                    styled = value
                elif ": " in value and len(value) < _COLON_WORDS_MAX and _COLON_WORDS(value):
                    styled = f"'{value}'"
                else:
                    styled = _styled(value, key=False)
                self.values[value] = styled
            return styled
        if t is dict:
            return None if value else "{}"
        if t is list:
            return None if value else "[]"
        if t is bool:
            return "true" if value else "false"
        if t is int:
            return str(value)
        if value is None:
            return "null"
        raise Fallback

    def mapping(self, data: dict[Any, Any], indent: str, first: str | None) -> None:
        """A block mapping at `indent`; `first` is the prefix of its first line ("- " inside a sequence)."""
        out, values, shared = self.out, self.values, self.shared
        prefixes = self.prefixes.get(indent)
        if prefixes is None:
            prefixes = self.prefixes[indent] = {}
        for k, v in data.items():
            pre: str | None
            if first is not None:  # the line after "- " of a sequence item: not the indent's prefix
                pre = f"{first}{self.key(k)}:"
                first = None
            else:
                pre = prefixes.get(k)
                if pre is None:
                    pre = prefixes[k] = f"{indent}{self.key(k)}:"
            # Strings and non-empty collections, most values, are handled here rather than through `scalar`
            # (same cache, same result; only the call is saved).
            t = type(v)
            if t is dict and v:
                out.append(f"{pre}\n")
                if shared and id(v) in shared:
                    self.reuse(v, indent + "  ")
                else:
                    self.mapping(v, indent + "  ", None)
            elif t is list and v:  # sequences in a mapping are not indented
                out.append(f"{pre}\n")
                if shared and id(v) in shared:
                    self.reuse(v, indent)
                else:
                    self.sequence(v, indent, None)
            else:
                s = values.get(v) if t is str else None
                out.append(f"{pre} {s or self.scalar(v)}\n")  # a styled string is never empty

    def reuse(self, value: dict[Any, Any] | list[Any], indent: str) -> None:
        """A shared collection as a mapping's value at `indent`: its text depends on nothing else."""
        key = (id(value), indent)
        text = self.texts.get(key)
        if text is None:
            start = len(self.out)
            if isinstance(value, dict):
                self.mapping(value, indent, None)
            else:
                self.sequence(value, indent, None)
            text = self.texts[key] = "".join(self.out[start:])
            del self.out[start:]
        self.out.append(text)

    def sequence(self, data: list[Any], indent: str, first: str | None) -> None:
        out, scalar = self.out, self.scalar
        for v in data:
            head = (first if first is not None else indent) + "- "
            first = None
            s = scalar(v)
            if s is not None:
                out.append(f"{head}{s}\n")
            elif type(v) is dict:
                self.mapping(v, indent + "  ", head)
            else:
                self.sequence(v, indent + "  ", head)

    def document(self, doc: Any, index: int) -> None:
        if index:
            self.out.append("---\n")
        if type(doc) is not dict or not doc:
            self.other(doc)
        else:
            self.mapping(doc, "", None)

    def other(self, doc: Any) -> None:
        """A document that is not a non-empty dict (a subclass writes objects of its own kinds here)."""
        raise Fallback

    def plain(self, doc: Any) -> Any:
        """`doc` as plain data for PyYAML when the fast walk gave up (a subclass converts its objects here)."""
        return doc


def dump_all(documents: Iterable[Any], shared: Collection[int] = (), writer: BlockWriter | None = None) -> str:
    """Multi-document block YAML, byte for byte as PyYAML's safe dumper writes it with drasim's options

    (keys in insertion order, block style, Unicode as is, no line folding). `shared`: ids of non-empty
    dicts and lists that occur as mapping values in several places, kept alive by the documents; each is
    written once per indent (the same bytes, less work). `writer`: a BlockWriter subclass that also writes
    documents of other types (its `other`), made with its own shared ids (`shared` is not used then)."""
    docs = list(documents)
    own = writer is None
    if writer is None:
        writer = BlockWriter(shared)
    try:
        for i, doc in enumerate(docs):
            writer.document(doc, i)
    except Fallback:
        # Shared parts would come out as `&id001` anchors and `*id001` aliases, not as the fast walk writes them.
        plain = [d if type(d) is dict else writer.plain(d) for d in docs]
        return yaml.dump_all(plain, Dumper=_NoAliasDumper if shared or not own else _Dumper, **_OPTIONS)
    return "".join(writer.out)
