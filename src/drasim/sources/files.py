"""Read Kubernetes objects from YAML/JSON files, directories and stdin, safely and with precise errors."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import yaml

from drasim.api.decode import DecodeResult, decode_documents, decode_json_bytes, gc_paused
from drasim.api.kinds import KubeObject
from drasim.errors import InputError

__all__ = ["MAX_ALIAS_EXPANSION", "LoadResult", "load_bytes", "load_file", "load_paths", "parse_yaml"]

# Extensions read from directories (files named explicitly are read whatever their name).
EXTENSIONS = (".yaml", ".yml", ".json")
# Nodes that YAML aliases may add to one document beyond those written out ("billion laughs" guard).
MAX_ALIAS_EXPANSION = 1_000_000


@dataclass
class LoadResult:
    """Objects in the order read (paths as given, directories sorted), warnings, and each object's file."""

    objects: list[KubeObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # parallel to `objects`
    api_versions: list[str] = field(default_factory=list)  # parallel to `objects`: as written, before conversion
    unserved: list[tuple[str, str, str, str]] = field(default_factory=list)  # (source, ref, apiVersion, kind)

    def add(self, result: DecodeResult, source: str) -> None:
        self.objects.extend(result.objects)
        self.sources.extend([source] * len(result.objects))
        self.warnings.extend(result.warnings)
        self.api_versions.extend(result.api_versions)
        self.unserved.extend((source, *u) for u in result.unserved)


def load_paths(paths: Sequence[str], *, stdin: IO[Any] | None = None) -> LoadResult:
    """Read every object from `paths`: files, directories (recursive, `.yaml/.yml/.json` only, sorted by
    path; other files are skipped silently, as `kubectl apply -f DIR` does) and `-` for `stdin`
    (default: the process's standard input). Raises `InputError` naming the file, object and field."""
    out = LoadResult()
    for path in paths:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            data = stream.read()
            out.add(load_bytes(data.encode() if isinstance(data, str) else data, source="-"), "-")
        elif os.path.isdir(path):
            found = _walk(path)
            if not found:
                out.warnings.append(f"{path}: no {'/'.join(EXTENSIONS)} files in this directory")
            for file in found:
                out.add(load_file(file), file)
        else:
            out.add(load_file(path), path)
    return out


def load_file(path: str) -> DecodeResult:
    """Read one file: JSON if it is named `.json`, else YAML (which also reads JSON)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", source=path) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), source=path) from None
    return load_bytes(data, source=path, json=path.lower().endswith(".json") or None)


def load_bytes(data: bytes, *, source: str, json: bool | None = None) -> DecodeResult:
    """Decode file contents. `json=None` sniffs: content starting with `{` or `[` is tried as JSON first
    (falling back to YAML, whose flow style also starts that way); `json=True` accepts only JSON."""
    if json is None:
        head = data.lstrip()[:1]
        if head in (b"{", b"["):
            try:
                return _guard_depth(lambda: decode_json_bytes(data, source=source), source)
            except InputError as exc:
                if not exc.message.startswith("invalid JSON"):
                    raise
    elif json:
        return _guard_depth(lambda: decode_json_bytes(data, source=source), source)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (invalid byte at offset {exc.start})", source=source) from None
    docs = parse_yaml(text, source=source)
    return _guard_depth(lambda: decode_documents(docs, source=source), source)


def _guard_depth(fn: Any, source: str) -> DecodeResult:
    try:
        result: DecodeResult = fn()
    except RecursionError:
        raise InputError("document is nested too deeply", source=source) from None
    return result


def _walk(root: str) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        found.extend(os.path.join(dirpath, f) for f in filenames if f.lower().endswith(EXTENSIONS))
    return sorted(found)


# --- YAML -----------------------------------------------------------------------------------------

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Loader(_BaseLoader):
    """The safe loader, with timestamps left as strings: Kubernetes converts YAML to JSON, where a time is
    a string, and the typed decoder parses it where the schema has a time (and keeps it where it has none)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_constructor(_TIMESTAMP, yaml.SafeLoader.construct_yaml_str)

# An alias can only expand something when the text has both an anchor and an alias; checking the node graph
# costs time on big files, so it runs only then (a CEL `&&` or `*` may trigger it needlessly; that is fine).
_ANCHOR_RE = re.compile(r"(?:^|[\s,\[{:-])&[^\s,\[\]{}&]")
_ALIAS_RE = re.compile(r"(?:^|[\s,\[{:-])\*[^\s,\[\]{}]")


def parse_yaml(text: str, *, source: str) -> list[Any]:
    """All documents of a YAML stream (null documents included), with line/column on syntax errors and
    `InputError` for documents whose aliases expand beyond `MAX_ALIAS_EXPANSION` nodes."""
    check_aliases = bool(_ANCHOR_RE.search(text) and _ALIAS_RE.search(text))
    loader = _Loader(text)
    docs: list[Any] = []
    try:
        with gc_paused():
            while loader.check_node():
                node = loader.get_node()
                if check_aliases:
                    _check_alias_expansion(node, source=source, document=len(docs) + 1)
                docs.append(_construct(loader, node))
    except yaml.MarkedYAMLError as exc:
        raise _yaml_error(exc, source) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", source=source) from None
    except RecursionError:
        raise InputError("invalid YAML: document is nested too deeply", source=source) from None
    finally:
        loader.dispose()
    return docs


_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_MERGE = "tag:yaml.org,2002:merge"


class _Unusual(Exception):
    """The document needs PyYAML's full constructor (merge keys, explicit tags, complex keys)."""


def _construct(loader: Any, root: yaml.Node) -> Any:
    """Build the document like `loader.construct_document`, ~2.5x faster for plain documents.

    PyYAML's constructor spends most of its time in generic dispatch; Kubernetes manifests are plain maps,
    lists and core scalars. Anything else falls back to the full constructor, so results are identical.
    """
    memo: dict[int, Any] = {}  # aliases yield the same object, as in PyYAML
    constructors = loader.yaml_constructors

    def build(node: yaml.Node) -> Any:
        key = id(node)
        if key in memo:
            return memo[key]
        cls = type(node)
        if cls is yaml.ScalarNode:
            if node.tag == _STR:
                value: Any = node.value
            else:
                ctor = constructors.get(node.tag)
                if ctor is None:
                    raise _Unusual
                value = ctor(loader, node)
            memo[key] = value
            return value
        if cls is yaml.MappingNode and node.tag == _MAP:
            mapping: dict[Any, Any] = {}
            memo[key] = mapping
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    raise _Unusual
                k = build(key_node)
                try:
                    mapping[k] = build(value_node)
                except TypeError:  # an unhashable key: let PyYAML report it
                    raise _Unusual from None
            return mapping
        if cls is yaml.SequenceNode and node.tag == _SEQ:
            seq: list[Any] = []
            memo[key] = seq
            seq.extend(build(child) for child in node.value)
            return seq
        raise _Unusual

    try:
        return build(root)
    except _Unusual:
        return loader.construct_document(root)


def _yaml_error(exc: yaml.MarkedYAMLError, source: str) -> InputError:
    mark = exc.problem_mark or exc.context_mark
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    problem = exc.problem or "syntax error"
    context = f"{exc.context}: " if exc.context else ""
    return InputError(f"invalid YAML{where}: {context}{problem}", source=source)


def _check_alias_expansion(root: yaml.Node, *, source: str, document: int) -> None:
    """Count the nodes the document has once aliases are expanded (each shared node once per use)."""
    size: dict[int, int] = {}
    distinct = 0
    cap = MAX_ALIAS_EXPANSION * 2 + 2  # sizes beyond this only need to be "too big"
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            size[key] = min(cap, 1 + sum(size[id(c)] for c in children))
            continue
        if key in size:
            if size[key] < 0:
                raise InputError(f"invalid YAML: document {document} has a recursive alias", source=source)
            continue
        size[key] = -1  # in progress: meeting it again below means a cycle
        distinct += 1
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children) if size.get(id(c), -2) < 0)
    if size[id(root)] - distinct > MAX_ALIAS_EXPANSION:
        raise InputError(f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} nodes in document "
                         f"{document} (a \"billion laughs\" document?)", source=source)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []
