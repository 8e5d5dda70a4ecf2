"""Read Kubernetes objects from YAML/JSON files, directories and stdin, safely and with precise errors."""

from __future__ import annotations

import functools
import hashlib
import json as json_module
import os
import re
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, cast

import re2
import yaml

from drasim import __version__
from drasim.api.decode import DecodeResult, decode_documents, decode_json_bytes, decode_json_documents, gc_paused
from drasim.api.kinds import KubeObject
from drasim.errors import InputError
from drasim.sources import parsecache, yamlfast, yamlscalars
from drasim.sources.jsondepth import MAX_DEPTH, check_json_depth
from drasim.sources.jsonkeys import check_json_duplicates, compact_json, duplicate_keys, keys_twice, minify
from drasim.sources.reading import describe, read_bounded, too_big, walk

__all__ = ["MAX_ALIAS_EXPANSION", "MAX_DEPTH", "MAX_FILE_BYTES", "AliasBudget", "LoadResult", "check_json_depth",
           "check_json_duplicates", "decode_text", "input_files", "load_bytes", "load_file", "load_paths", "parse_yaml",
           "read_input", "read_stream"]

# Extensions read from directories (files named explicitly are read whatever their name).
EXTENSIONS = (".yaml", ".yml", ".json")
# Nodes that YAML aliases may add to one input (a file, stdin, one `load_paths` call) beyond those written out
# ("billion laughs" guard): per input, not per document, so many small bombs in one stream are caught too.
MAX_ALIAS_EXPANSION = 1_000_000
# Bytes read from any one file or stream: more is refused before parsing (a dump of 100,000 pods is ~150 MiB).
MAX_FILE_BYTES = 256 * 1024 * 1024


@dataclass
class LoadResult:
    """Objects in the order read (paths as given, directories sorted), warnings, and each object's file."""

    objects: list[KubeObject] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # parallel to `objects`
    api_versions: list[str] = field(default_factory=list)  # parallel to `objects`: as written, before conversion
    unserved: list[tuple[str, str, str, str]] = field(default_factory=list)  # (source, ref, apiVersion, kind)
    # Documents that could not be read (`keep_going`): each names its file, document and field path.
    errors: list[InputError] = field(default_factory=list)
    # drasim's own documents (Timeline, ClusterInfo): (source, where in it, raw document), in the order read.
    own: list[tuple[str, str | None, dict[str, Any]]] = field(default_factory=list)

    def add(self, result: DecodeResult, source: str) -> None:
        self.objects.extend(result.objects)
        self.sources.extend([source] * len(result.objects))
        self.warnings.extend(result.warnings)
        self.api_versions.extend(result.api_versions)
        self.unserved.extend((source, *u) for u in result.unserved)
        self.errors.extend(result.errors)
        self.own.extend((source, where, doc) for where, doc in result.own)


@dataclass
class AliasBudget:
    """Alias-expanded nodes still allowed in the current input (shared by its files and documents)."""

    left: int = -1  # -1: MAX_ALIAS_EXPANSION, read when first used (tests change the limit)

    def spend(self, nodes: int, *, source: str, document: int) -> None:
        if self.left < 0:
            self.left = MAX_ALIAS_EXPANSION
        self.left -= nodes
        if self.left < 0:
            raise InputError(f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} nodes in this input "
                             f"(reached in document {document}; a \"billion laughs\" document?)", source=source)


def load_paths(paths: Sequence[str], *, stdin: IO[Any] | None = None, keep_going: bool = False,
               named: bool = True) -> LoadResult:
    """Read every object from `paths`: files, directories (recursive, `.yaml/.yml/.json` only, sorted by
    path; other files are skipped silently, as `kubectl apply -f DIR` does; entries that are not regular
    files, such as FIFOs, devices or dangling links, are skipped with a warning) and `-` for `stdin`
    (default: the process's standard input). Raises `InputError` naming the file, object and field; with
    `keep_going`, documents that do not decode are recorded in `errors` instead and the rest read, as
    `kubectl apply -f` goes on (a file that is not YAML at all stops at that point; unreadable files and
    the input guards still raise). `named=False`: the paths come from a file, not the user (a Timeline's
    `file:`), so a pipe or device among them is refused rather than read."""
    out = LoadResult()
    budget = AliasBudget()
    for path in paths:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            out.add(load_bytes(read_stream(stream, source="-"), source="-", budget=budget, keep_going=keep_going),
                    "-")
        elif os.path.isdir(path):
            found, skipped = input_files(path)
            out.warnings.extend(skipped)
            if not found and not skipped:
                out.warnings.append(f"{path}: no {'/'.join(EXTENSIONS)} files in this directory")
            for file in found:  # found in a directory: regular files only
                out.add(load_file(file, budget=budget, keep_going=keep_going, named=False), file)
        else:
            out.add(load_file(path, budget=budget, keep_going=keep_going, named=named), path)
    return out


def load_file(path: str, *, budget: AliasBudget | None = None, keep_going: bool = False,
              named: bool = True) -> DecodeResult:
    """Read one file: JSON if it is named `.json`, else YAML (which also reads JSON)."""
    return load_bytes(read_input(path, named=named), source=path, json=path.lower().endswith(".json") or None,
                      budget=budget, keep_going=keep_going)


def read_input(path: str, *, named: bool = True) -> bytes:
    """The bytes of an input file, at most `MAX_FILE_BYTES` (a regular file's size is checked before reading).
    A FIFO or device the user `named` is read (`-f <(cmd)` is a pipe), never beyond the bound; one found in a
    directory or named by another file is refused, since reading it can block forever or never end."""
    return read_bounded(path, MAX_FILE_BYTES, named=named)


def read_stream(stream: IO[Any], *, source: str) -> bytes:
    """Bytes from an open stream (stdin), at most `MAX_FILE_BYTES`; text streams are encoded as UTF-8."""
    data = stream.read(MAX_FILE_BYTES + 1)
    data = data.encode() if isinstance(data, str) else data
    if len(data) > MAX_FILE_BYTES:
        raise too_big(source, MAX_FILE_BYTES)
    return bytes(data)


def input_files(root: str, extensions: tuple[str, ...] = EXTENSIONS, *,
                hidden: bool = True) -> tuple[list[str], list[str]]:
    """Files under `root` (recursive, sorted) named with `extensions` (all files when empty; directories
    starting with `.` skipped unless `hidden`), and a warning for each such entry that is not a regular file
    (a FIFO, device or socket): those are never opened, since reading one can block forever
    or never end."""
    found: list[str] = []
    skipped: list[str] = []
    for path in walk(root, hidden=hidden):
        if extensions and not os.path.basename(path).lower().endswith(extensions):
            continue
        why = _not_regular(path)
        if why:
            skipped.append(f"{path}: skipped: {why}")
        else:
            found.append(path)
    return found, skipped


def _not_regular(path: str) -> str:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return ""  # a dangling link or no permission: reading it reports the error (never a silent skip)
    if stat.S_ISREG(mode):
        return ""
    what = describe(mode)
    link = " (through a symbolic link)" if os.path.islink(path) else ""
    return f"{what}{link}, not a regular file"


def decode_text(data: bytes, *, source: str) -> str:
    """Text of a YAML input: UTF-8 (with or without a byte order mark), or UTF-16/32 with one, as YAML allows."""
    encoding = "utf-8-sig"
    if data[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):
        encoding = "utf-32"
    elif data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        encoding = "utf-16"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding == "utf-8-sig" else encoding.upper()
        raise InputError(f"not {name} text (invalid byte at offset {exc.start})", source=source) from None


def load_bytes(data: bytes, *, source: str, json: bool | None = None,
               budget: AliasBudget | None = None, keep_going: bool = False) -> DecodeResult:
    """Decode file contents. `json=None` sniffs: content starting with `{` or `[` is tried as JSON first
    (falling back to YAML, whose flow style also starts that way); `json=True` accepts only JSON.
    With `keep_going`, objects that do not decode are recorded in `errors` and the next one read; a YAML
    syntax error keeps the documents before it and ends the file there (as kubectl's stream reader)."""
    if len(data) > MAX_FILE_BYTES:
        raise too_big(source, MAX_FILE_BYTES)
    if json is None:
        head = data.lstrip()[:1]
        if head in (b"{", b"["):
            compact = compact_json(data)
            try:
                check_json_depth(data, source=source, compact=compact)
            except InputError as deep:
                # Brackets in YAML's quotes or comments nest nothing: refused only if YAML finds it deep too.
                try:
                    _check_depth(decode_text(data, source=source), source=source)
                except InputError:
                    raise deep from None
            else:
                try:
                    twice = keys_twice(data, compact=compact)
                    del compact  # freed before the decode allocates; the YAML fallback does not read it
                    return _guard_depth(lambda: _decode_json(data, source, keep_going, twice), source)
                except InputError as exc:
                    if not exc.message.startswith("invalid JSON:"):  # a syntax error: YAML's flow style may read it
                        raise
    elif json:
        minified = minify(data)
        compact = minified or compact_json(data)  # strings as written or not: the depth and the keys are the same
        check_json_depth(data, source=source, compact=compact)
        twice = keys_twice(data, compact=compact)
        del compact  # a copy the decode does not read is freed before it allocates
        # A key set twice: the text as written (the envelope's peek could see a second `kind` in the copy).
        return _guard_depth(lambda: _decode_json(data, source, keep_going, twice, None if twice else minified), source)
    return _load_yaml(data, source=source, budget=budget, keep_going=keep_going)


def _load_yaml(data: bytes, *, source: str, budget: AliasBudget | None, keep_going: bool) -> DecodeResult:
    """A YAML input's objects. Read by rapidyaml (see `yamlfast`), its JSON goes through the typed decoders of
    the JSON input (no dicts in between) when JSON reads its numbers as YAML does and no key is set twice;
    anything else is read into documents as `_parse` reads them and decoded from those."""
    key = _cache_key(data)
    cached = parsecache.lookup(key) if key is not None else None
    if isinstance(cached, yamlfast.Emitted):
        return _decode_emitted(cached, source, keep_going)
    syntax: list[InputError] | None = [] if keep_going else None
    if cached is None:
        # ASCII bytes (most manifests) are their own UTF-8: their str is built only if the full loader reads them.
        text = None if data.isascii() else decode_text(data, source=source)
        emitted = _emit(text, source, data)
        if emitted is not None and _typed_ready(emitted):
            if key is not None:
                parsecache.store_json(key, emitted.json, stream=emitted.stream)
            return _decode_emitted(emitted, source, keep_going)
        whole = data.decode("ascii") if text is None else text
        cached = _parse_kept(lambda: _parse_emitted(whole, emitted, source=source, budget=budget, syntax_errors=syntax),
                             syntax_errors=syntax, key=key)
    result = _guard_depth(lambda: decode_documents(cached, source=source, keep_going=keep_going), source)
    result.errors += syntax or []
    return result


def _typed_ready(emitted: yamlfast.Emitted) -> bool:
    """Whether no key of rapidyaml's JSON is set twice and JSON reads every bare number as YAML 1.1 does (one
    pass, the numbers checked by the parser's hooks: a scan of the text for them cost twenty times more)."""
    try:
        return not duplicate_keys(emitted.json, number=yamlfast.json_number)
    except ValueError:  # such a number, or not the JSON the emitter should write (the documents' path declines)
        return False


def _decode_emitted(emitted: yamlfast.Emitted, source: str, keep_going: bool) -> DecodeResult:
    def load(raw: bytes) -> Any:  # a document the typed decoders do not take, with YAML 1.1's numbers
        return json_module.loads(raw, parse_int=_plain, parse_float=_plain, parse_constant=_plain)

    return _guard_depth(lambda: decode_json_documents(emitted.json, stream=emitted.stream, source=source, load=load,
                                                      keep_going=keep_going), source)


def _cache_key(data: bytes) -> str | None:
    """The parse cache's key for the bytes, or None when they are too small to be worth an entry or the cache is
    off (no hash of them then: 0.05 CPU-s per 80 MB)."""
    if len(data) < parsecache.MIN_BYTES or parsecache.cache_dir() is None:
        return None
    return parsecache.entry_key(data, f"drasim {__version__} {_parser_fingerprint()} pyyaml {yaml.__version__} "
                                      f"{_BaseLoader.__name__} depth {MAX_DEPTH} aliases {MAX_ALIAS_EXPANSION}")


def _parse_cached(data: bytes, *, source: str, budget: AliasBudget | None,
                  syntax_errors: list[InputError] | None) -> list[Any]:
    """`parse_yaml` of the bytes, through the parse cache when they are big enough to be worth it. A test seam:
    production reads YAML through `_load_yaml`; tests use this to compare cached documents with the parse."""
    key = _cache_key(data)
    cached = parsecache.lookup(key) if key is not None else None
    if isinstance(cached, yamlfast.Emitted):
        cached = yamlfast.documents(cached, _plain)  # stored only when clean: None only if it was changed
    if cached is not None:
        return cached
    text = decode_text(data, source=source)
    return _parse_kept(lambda: _parse(text, source=source, budget=budget, syntax_errors=syntax_errors),
                       syntax_errors=syntax_errors, key=key)


def _parse_kept(parse: Callable[[], tuple[list[Any], bool]], *, syntax_errors: list[InputError] | None,
                key: str | None) -> list[Any]:
    """The documents of `parse` (`_parse`), kept in the parse cache under `key` when they are plain and clean."""
    errors_before = len(syntax_errors) if syntax_errors is not None else 0
    docs, plain = parse()
    clean = syntax_errors is None or len(syntax_errors) == errors_before
    if key is not None and plain and clean:
        parsecache.store(key, docs)
    return docs


@functools.cache
def _parser_fingerprint() -> str:
    """A hash of the YAML reading modules' sources (and rapidyaml's version), so that a parser changed
    without a new version (a development checkout) never reads entries the old one wrote."""
    digest = hashlib.sha256(getattr(yamlfast.ryml, "__version__", "no rapidyaml").encode())
    try:
        for path in (__file__, yamlfast.__file__, yamlscalars.__file__):
            with open(path, "rb") as f:
                digest.update(f.read())
    except OSError:
        return "unknown"
    return digest.hexdigest()[:16]


def _guard_depth(fn: Any, source: str) -> DecodeResult:
    try:
        result: DecodeResult = fn()
    except RecursionError:
        raise InputError(f"document is nested too deeply (more than {MAX_DEPTH} levels)", source=source) from None
    return result


# --- JSON -----------------------------------------------------------------------------------------

def _decode_json(data: bytes, source: str, keep_going: bool, twice: bool,
                 minified: bytes | None = None) -> DecodeResult:
    result = decode_json_bytes(data, source=source, keep_going=keep_going, minified=minified)
    check_json_duplicates(data, source=source, twice=twice)  # keys_twice's answer, refused once the syntax is good
    return result


# --- YAML -----------------------------------------------------------------------------------------
# The loader and its scalar rules live in yamlscalars; these names are this module's (tests replace `_Loader`).
_BaseLoader, _Loader = yamlscalars.BaseLoader, yamlscalars.Loader
_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
_STR, _SEQ, _MAP = yamlscalars.STR, yamlscalars.SEQ, yamlscalars.MAP
_plain = yamlscalars.plain_scalar


# An alias can only expand something when the text has both an anchor and an alias; checking the node graph
# costs time on big files, so it runs only then (a CEL `&&` or `*` may trigger it needlessly; that is fine).
# A marker counts after the start, whitespace or `,[{:-`; the patterns start with the marker itself, which
# the regex engine finds at memchr speed (a leading alternation costs 0.2 CPU-s per 1,000 fleet nodes).
_ANCHOR_RE = re.compile(r"&[^\s,\[\]{}&]")
_ALIAS_RE = re.compile(r"\*[^\s,\[\]{}]")
_BEFORE_MARKER = frozenset(",[{:-")


def _has_marker(text: str, pattern: re.Pattern[str]) -> bool:
    for m in pattern.finditer(text):
        i = m.start()
        if i == 0 or text[i - 1].isspace() or text[i - 1] in _BEFORE_MARKER:
            return True
    return False


def parse_yaml(text: str, *, source: str, budget: AliasBudget | None = None,
               syntax_errors: list[InputError] | None = None) -> list[Any]:
    """All documents of a YAML stream (null documents included), with line/column on syntax errors.

    The input guards live here, for every path that reads YAML: `InputError` for documents nested deeper
    than `MAX_DEPTH`, aliases expanding beyond `MAX_ALIAS_EXPANSION` nodes in the whole input (`budget`,
    shared by the files of one input; a fresh one by default), and duplicate mapping keys; integers and
    floats beyond 64 bits become what Go's YAML makes of them (a float, else the string as written).
    With `syntax_errors`, a syntax error (or a key set twice) is appended there and the documents before it
    returned (the guards still raise).
    """
    return _parse(text, source=source, budget=budget, syntax_errors=syntax_errors)[0]


def _parse(text: str, *, source: str, budget: AliasBudget | None,
           syntax_errors: list[InputError] | None) -> tuple[list[Any], bool]:
    """`parse_yaml`, and whether its documents are plain data (no aliases, every document plain: see
    `_construct`), so that the parse cache may keep them."""
    return _parse_emitted(text, _emit(text, source), source=source, budget=budget, syntax_errors=syntax_errors)


def _emit(text: str | None, source: str, data: bytes | None = None) -> yamlfast.Emitted | None:
    """The depth guard, then rapidyaml's JSON of the text if it is the plain common case (see `yamlfast`). `data`:
    the bytes the text was decoded from, its UTF-8 when they are ASCII (`text` None: they are, and its text)."""
    try:
        encoded = data if data is not None and (text is None or data.isascii()) else cast(str, text).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a caller's str, never a file's): the full loader refuses it
        encoded = None
    # Every line's indentation and indicators, for the depth guard and libyaml: a fleet's thousands of documents
    # are a few dozen shapes.
    shapes = yamlfast.distinct_shapes(encoded) if encoded is not None and yamlfast.available() else None
    _check_depth(text, source=source, encoded=encoded, shapes=shapes)
    if encoded is None:
        return None
    with gc_paused():
        return yamlfast.emit(text, _plain, yaml.reader.Reader.NON_PRINTABLE, encoded=encoded, shapes=shapes)


def _parse_emitted(text: str, emitted: yamlfast.Emitted | None, *, source: str, budget: AliasBudget | None,
                   syntax_errors: list[InputError] | None) -> tuple[list[Any], bool]:
    """`_parse` of a text whose depth is checked, `emitted` its rapidyaml JSON (None: declined)."""
    budget = budget if budget is not None else AliasBudget()
    with gc_paused():
        fast = yamlfast.documents(emitted, _plain) if emitted is not None else None
    if fast is not None:  # the plain common case, read as below would (no alias: plain data)
        return fast, True
    check_aliases = _has_marker(text, _ANCHOR_RE) and _has_marker(text, _ALIAS_RE)
    plain = [not check_aliases]
    loader = _Loader(text)
    docs: list[Any] = []
    try:
        with gc_paused():
            while loader.check_node():
                node = loader.get_node()
                if check_aliases:
                    _check_alias_expansion(node, source=source, document=len(docs) + 1, budget=budget)
                try:
                    docs.append(_construct(loader, node, source, plain, shared=check_aliases))
                except InputError as exc:  # a key set twice: this document only
                    if syntax_errors is None:
                        raise
                    exc.obj = exc.obj or f"document {len(docs) + 1}"
                    syntax_errors.append(exc)
                    docs.append(None)  # keeps the positions of the documents after it
    except yaml.YAMLError as exc:
        if syntax_errors is None:
            raise _yaml_error(exc, source, text) from None
        err = _yaml_error(exc, source, text)
        err.obj = f"document {len(docs) + 1}"  # the documents after it are not read (kubectl stops there too)
        syntax_errors.append(err)
    except RecursionError:
        raise InputError(f"invalid YAML: document is nested too deeply (more than {MAX_DEPTH} levels)",
                         source=source) from None
    finally:
        loader.dispose()
    return docs, plain[0]


# Nesting can only exceed MAX_DEPTH when a line starts with that many indentation/indicator characters or the
# text has that many flow brackets that are not empty; only then are the parser's events counted (no document
# is built). RE2 (linear, a DFA) finds such a line in a tenth of the time Python's engine takes.
_DEEP_PREFIX = re2.compile(r"(?m)^[ \t?:-]{%d}" % MAX_DEPTH)  # noqa: UP031
_DEEP_PREFIX_UTF8 = re2.compile(rb"(?m)^[ \t?:-]{%d}" % MAX_DEPTH)
_BRACKETS, _BRACKETS_UTF8 = ("[", "{", "[]", "{}"), (b"[", b"{", b"[]", b"{}")


def _check_depth(text: str | None, *, source: str, encoded: bytes | None = None,
                 shapes: bytes | None = None) -> None:
    """`InputError` when the text nests deeper than `MAX_DEPTH`. `encoded`: the text as UTF-8 when the caller
    has it (RE2 reads bytes as they are; a str it encodes first); `text` None: decoded from it if needed;
    `shapes`: `encoded`'s `yamlfast.distinct_shapes` (every line's indentation), searched instead of it."""
    scan: Any = text if encoded is None else encoded
    bracket, brace, empty_list, empty_map = _BRACKETS if encoded is None else _BRACKETS_UTF8
    deep_prefix = (_DEEP_PREFIX.search(scan) if encoded is None
                   else _DEEP_PREFIX_UTF8.search(shapes if shapes is not None else encoded))
    # An empty `{}` or `[]` (kubectl writes thousands: `resources: {}`) holds nothing, so it deepens a
    # chain of flow collections by one at most: flow depth <= openers that are not empty, plus one.
    opened = scan.count(bracket) + scan.count(brace)
    empty = scan.count(empty_list) + scan.count(empty_map) if opened > MAX_DEPTH else 0  # most texts: never counted
    if deep_prefix is None and opened - empty + (empty > 0) <= MAX_DEPTH:
        return
    text = text if text is not None else cast(bytes, encoded).decode("utf-8")
    try:
        too_deep = _too_deep(text)
    except yaml.YAMLError as exc:
        # The scanner reads up to 1,024 characters ahead of the events it has given, and libyaml 0.2.6
        # (PyYAML 6.0.4's wheels) stops at 1,000 open flow collections itself: `[[[[...` reaches that
        # before the event 201 levels down is out. The text before the error holds every opener up to
        # it, below any such limit, so counting it again finds ours where it is (and none for an
        # ordinary syntax error, which is reported as the parser has it).
        mark = exc.problem_mark if isinstance(exc, yaml.MarkedYAMLError) else None
        too_deep = _too_deep_before(text, mark.index) if mark is not None else None
        if too_deep is None:
            raise _yaml_error(exc, source, text) from None
    if too_deep is not None:
        raise InputError(f"invalid YAML{too_deep}: nested more than {MAX_DEPTH} levels deep", source=source)


def _too_deep_before(text: str, end: int) -> str | None:
    try:
        return _too_deep(text[:end])
    except yaml.YAMLError:  # what the cut leaves open is no error of the input's
        return None


def _too_deep(text: str) -> str | None:
    """Where the first collection more than `MAX_DEPTH` levels down starts (` (line L, column C)`), from the
    parser's events (no document is built); None if there is none. Raises the parser's `YAMLError`."""
    depth = 0
    loader = _Loader(text)
    starts = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    ends = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, starts):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            elif isinstance(event, ends):
                depth -= 1
    finally:
        loader.dispose()
    return None


_MERGE = "tag:yaml.org,2002:merge"


class _Unusual(Exception):
    """The document needs PyYAML's full constructor (merge keys, explicit tags, complex keys)."""


def _construct(loader: Any, root: yaml.Node, source: str, plain: list[bool], *, shared: bool = True) -> Any:
    """Build the document like `loader.construct_document`, ~2.5x faster for plain documents.

    PyYAML's constructor spends most of its time in generic dispatch; Kubernetes manifests are plain maps,
    lists and core scalars. Anything else falls back to the full constructor, so results are identical.
    A key set twice in one mapping is an error, as in Kubernetes' strict decoding. `plain[0]` is cleared
    when the document has a key that is not a string or needs the full constructor (not plain data).
    Without `shared` (no alias in the text: no node is reached twice) nodes are not memoised.
    """
    memo: dict[int, Any] = {}  # aliases yield the same object, as in PyYAML
    constructors = loader.yaml_constructors

    def build(node: yaml.Node) -> Any:
        key = id(node)
        if shared and key in memo:
            return memo[key]
        cls = node.__class__
        tag = node.tag
        if cls is _ScalarNode:
            if tag == _STR:
                value: Any = node.value
            else:
                ctor = constructors.get(tag)
                if ctor is None:
                    raise _Unusual
                value = ctor(loader, node)
            if shared:
                memo[key] = value
            return value
        # Children that are string scalars (most of a manifest) are read in place rather than built.
        if cls is _MappingNode and tag == _MAP:
            mapping: dict[Any, Any] = {}
            if shared:
                memo[key] = mapping
            for key_node, value_node in node.value:
                if key_node.tag == _STR and key_node.__class__ is _ScalarNode:
                    k = key_node.value
                else:
                    if key_node.tag == _MERGE:
                        raise _Unusual
                    plain[0] = False
                    k = build(key_node)
                try:
                    if k in mapping:
                        raise _duplicate(node, key_node, source)
                    if value_node.tag == _STR and value_node.__class__ is _ScalarNode:
                        mapping[k] = value_node.value
                    else:
                        mapping[k] = build(value_node)
                except TypeError:  # an unhashable key: let PyYAML report it
                    raise _Unusual from None
            return mapping
        if cls is _SequenceNode and tag == _SEQ:
            seq: list[Any] = []
            if shared:
                memo[key] = seq
            seq.extend(child.value if child.tag == _STR and child.__class__ is _ScalarNode else build(child)
                       for child in node.value)
            return seq
        raise _Unusual

    try:
        return build(root)
    except _Unusual:
        plain[0] = False
        _check_duplicates(root, source)
        return loader.construct_document(root)


def _duplicate(mapping: yaml.Node, key_node: yaml.Node, source: str) -> InputError:
    first = next((k for k, _ in mapping.value if k.value == key_node.value), key_node)
    mark = key_node.start_mark
    return InputError(f"invalid YAML (line {mark.line + 1}, column {mark.column + 1}): key \"{key_node.value}\" "
                      f"already set in map (line {first.start_mark.line + 1})", source=source)


def _check_duplicates(root: yaml.Node, source: str) -> None:
    """Duplicate scalar keys anywhere in a document the full constructor builds (merge keys may repeat)."""
    seen_nodes: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[tuple[str, str]] = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.tag != _MERGE:
                    k = (key_node.tag, key_node.value)
                    if k in keys:
                        raise _duplicate(node, key_node, source)
                    keys.add(k)
        stack.extend(_children(node))


def _yaml_error(exc: yaml.YAMLError, source: str, text: str) -> InputError:
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML forbids (NUL, other controls)
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        char = exc.character if isinstance(exc.character, int) else ord(exc.character)
        return InputError(f"invalid YAML (line {line}, column {column}): character #x{char:04x} is not "
                          "allowed", source=source)
    if not isinstance(exc, yaml.MarkedYAMLError):
        return InputError(f"invalid YAML: {exc}", source=source)
    mark = exc.problem_mark or exc.context_mark
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    problem = exc.problem or "syntax error"
    context = f"{exc.context}: " if exc.context else ""
    return InputError(f"invalid YAML{where}: {context}{problem}", source=source)


def _check_alias_expansion(root: yaml.Node, *, source: str, document: int, budget: AliasBudget) -> None:
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
    budget.spend(size[id(root)] - distinct, source=source, document=document)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []
