"""The fast YAML reader: rapidyaml parses the plain common case to JSON; anything unusual is declined."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

import re2
import yaml

try:
    import ryml
except ImportError:  # pragma: no cover - rapidyaml has wheels wherever drasim runs; without it: the full loader
    ryml = None

__all__ = ["Emitted", "available", "distinct_shapes", "documents", "emit", "json_number", "read_documents"]

_STDERR_LOCK = threading.Lock()
_CParser: Any = getattr(getattr(yaml, "_yaml", None), "CParser", None)  # PyYAML's libyaml binding

# Why this is faithful. rapidyaml (a compiled YAML 1.2 parser) gives each scalar's text; its JSON emitter writes a
# plain scalar that looks like a JSON number, `true`, `false` or `null` bare and every other scalar quoted. The
# documents drasim reads are what Kubernetes' YAML (YAML 1.1 scalar rules, as the full loader's resolvers) gives,
# so: bare numbers go back through the full loader's resolver (`plain`, from their text), and a text is declined
# before parsing when it holds anything where the two could differ: a plain scalar (or key) that YAML 1.1
# reads as other than a string and JSON would not (`yes`, `~`, `0x1F`, `1_000`, `1:20`, `.inf`, a number as a
# key), tags, anchors, aliases, merge keys, complex keys, directives, tabs, characters YAML forbids. A text
# libyaml (the full loader's parser) refuses, a key set twice, a JSON the emitter got wrong, or any parse
# error is declined too: the full loader then reads the text again and reports what it reports today (line
# and column). The scan below is one RE2 search over the bytes (linear, ~0.1 s per 100 MB); a match is
# checked (its context, the full loader's resolver) before the text is declined.

_BOUNDARY = rb"(?:\A|\n|[\[{,]|: |- )"  # where a node may start (then spaces)
# One pass finds the first candidate of four kinds. (1) Anywhere: tabs, lone carriage returns, control
# characters, directives, escaped UTF-16 surrogates (the full loader keeps each half; rapidyaml pairs them),
# an escaped line break before an empty line (rapidyaml folds the two into one space), a block scalar on a
# line of its own (a whole document's may have lines at column 0, where the two read `---` and `#` apart).
# Outside comments and quoted or block scalars (see `_in_text`): (2) tags, anchors, aliases, reserved
# indicators, merge keys, complex keys (in flow context `?` starts one even before a non-space: rapidyaml
# reads `[?x]` as a string), plain `nan`, `inf`, `infinity` (strings in YAML 1.1; rapidyaml 0.15's JSON
# emitter writes them as ".nan", ".inf", or bare with a sign); (3) plain scalars that may read other than as
# a string where JSON would not (each checked with `plain`), and keys that may read other than as a string
# (JSON keys are always strings); (4) a number, `true`, `false` or `null` that is a flow mapping's key
# without a value (`{a: 1, 2}`).
_CANDIDATE = re2.compile(
    rb"(\t|\r(?:[^\n]|\z)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|(?:\A|\n)%|\\(?:u|U0000)[dD][89a-fA-F]"
    rb"|\\\r?\n *\r?\n|(?:\A|\n) *(?:--- +)?[|>])"
    rb"|" + _BOUNDARY + rb" *(?:([!&*@`?]|<<|[-+]?(?:nan|inf|infinity)(?:[\s,\]}]|:\s|\z))|"
    rb"(?:yes|Yes|YES|no|No|NO|True|TRUE|False|FALSE|on|On|ON|off|Off|OFF|Null|NULL)\b|~|="
    rb"|[-+]?\.[0-9a-zA-Z]|\+[0-9.]|-?0[0-7_]+(?:[\s,\]}]|:\s|\z)|-?0[0-9_]+\.|-?0[bx]|-?[0-9]+_"
    rb"|-?[0-9][0-9_]*\.(?:[^0-9]|\z)|-?[0-9][0-9_]*\.[0-9]*_"
    rb"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?(?:[\s,\]}]|:\s|\z)"
    rb"|(?:-?[0-9.]|true\b|false\b|null\b)[^\s,\[\]{}]* *:(?:\s|\z))"
    rb"|((?:[{,]|\n) *(?:-?[0-9.]|true|false|null)[^\s,\[\]{}]* *[,}])")
_TOKEN = re.compile(rb"[^\s,\[\]{}]*")
_KEY_AFTER = re.compile(rb" *:(?:\s|\Z)")
_SKIP = re.compile(rb"(?:\n|[\[{,]|: |- ) *")
_BLOCK_HEADER = re.compile(rb"(?:^ *|: +|- +)[|>][-+0-9]* *$")  # a line with a `#` is never taken for one
# What rapidyaml's JSON emitter writes bare (the JSON parser hands its numbers' text to `plain`).
_JSON_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null")
_LINE_BREAKS = ("\x85", "\u2028", "\u2029", "\ufeff")  # line breaks in YAML 1.1, not in 1.2; a BOM inside


class _Declined(Exception):
    pass


def available() -> bool:
    """Whether rapidyaml is importable (it is a dependency; without it every text goes to the full loader)."""
    return ryml is not None


class Emitted(NamedTuple):
    """A text's documents as rapidyaml's JSON: an array of them when `stream`, else the one document."""

    json: bytes | bytearray | memoryview
    stream: bool


def read_documents(text: str, plain: Callable[[str], Any], non_printable: re.Pattern[str]) -> list[Any] | None:
    """The documents of `text` as the full loader reads them, or None when the text is not the plain common
    case (see above) and the full loader must read it. `plain`: the full loader's value of a plain scalar
    (raises ValueError for one it cannot build); `non_printable`: characters YAML forbids (non-ASCII texts).
    A test seam: production calls `emit` and `documents` itself; tests compare this with the full loader."""
    emitted = emit(text, plain, non_printable)
    return None if emitted is None else documents(emitted, plain)


def emit(text: str | None, plain: Callable[[str], Any], non_printable: re.Pattern[str], *,
         encoded: bytes | None = None, shapes: bytes | None = None) -> Emitted | None:
    """rapidyaml's JSON of `text` (`encoded`: as UTF-8, when the caller has it) when it is the plain common case
    (see above; keys set twice not checked yet), else None. `text` None: `encoded` is ASCII, its own text;
    `shapes`: its `distinct_shapes`, when the caller has them."""
    if ryml is None:
        return None
    if text is not None and not text.isascii() and (non_printable.search(text)
                                                    or any(c in text for c in _LINE_BREAKS)):
        return None
    if encoded is not None:
        data = encoded
    else:
        try:
            data = cast(str, text).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a caller's str, never a file's): the full loader refuses it
            return None
    if _unusual(data, plain) or not _libyaml_accepts(data, shapes):
        return None
    try:
        with _quiet_stderr():  # the emitter prints its errors too (a tree deeper than it goes)
            ended = _has_document_end(shapes if shapes is not None else data)  # the shapes hold every line
            return _emit_whole(data) if ended else _emit_pieces(data, _PIECE_BYTES)
    except (ryml.ExceptionBasic, _Declined):
        return None


# A stream is parsed a piece of whole documents at a time, each piece at least this long: rapidyaml's tree of a
# whole 83 MB fleet (3.8 million nodes of ~140 bytes, grown by doubling) faulted in 1.2 GB and cost more than
# its parse; a piece's tree is reused and stays in cache. Documents share nothing (anchors, tags, directives
# are declined), so each reads alone as in the whole stream.
_PIECE_BYTES = 256 * 1024


def _emit_whole(data: bytes) -> Emitted:
    """rapidyaml's JSON of the whole text in one tree (raises ryml.ExceptionBasic): the plain path."""
    tree = ryml.parse_in_arena(data)
    root = tree.root_id()
    if tree.type(root) == ryml.NOTYPE:
        return Emitted(b"[]", stream=True)  # no document: empty, or comments only
    stream = tree.is_stream(root)
    out = bytearray(b"[" if stream else b"")
    _append_documents(tree, out, bytearray(), first=True)
    if stream:
        out += b"]"
    return Emitted(out, stream=stream)


def _emit_pieces(data: bytes, piece: int) -> Emitted:
    """`_emit_whole`'s documents, read a piece of at least `piece` bytes (ending before a `---` line) at a time."""
    view = memoryview(data)
    tree = ryml.Tree()
    out = bytearray(b"[")
    scratch = bytearray()
    start, first, stream = 0, True, True
    while start < len(data):
        end = _next_marker(data, start + piece)
        tree.clear()
        tree.clear_arena()
        ryml.parse_in_arena(view[start:end], tree=tree)
        root = tree.root_id()
        if tree.type(root) != ryml.NOTYPE:
            if start == 0 and end == len(data) and not tree.is_stream(root):
                stream = False  # one document without a `---`: emitted as itself
                out.clear()
            scratch, first = _append_documents(tree, out, scratch, first=first)
        start = end
    if first:
        return Emitted(b"[]", stream=True)  # no document: empty, or comments only
    if stream:
        out += b"]"  # in place: `out + b"]"` copied the 71 MB of a fleet
    return Emitted(out, stream=stream)


def _has_document_end(data: bytes) -> bool:
    """Whether a line starts with `...` (a document's end: such a text is read whole, a precaution, since libyaml,
    which checks the text first, refuses the bare document that could follow one). A find, not a regex: Python's
    engine tries an alternation at every offset (0.9 s here)."""
    if data.startswith(b"...") and data[3:4] in b" \r\n":  # b"" (the text's end) is in any bytes
        return True
    pos = 0
    while (i := data.find(b"\n...", pos)) >= 0:
        if data[i + 4:i + 5] in b" \r\n":
            return True
        pos = i + 4
    return False


def _next_marker(data: bytes, pos: int) -> int:
    """The offset of the first `---` line (a document's start) at or after `pos`, else the text's length."""
    if pos >= len(data):
        return len(data)
    if data.startswith(b"---", pos) and data[pos - 1:pos] == b"\n" and data[pos + 3:pos + 4] in b" \r\n":
        return pos
    while (i := data.find(b"\n---", pos)) >= 0:
        if data[i + 4:i + 5] in b" \r\n":  # `---x` is a scalar; bytes of nothing: the text's end
            return i + 1
        pos = i + 4
    return len(data)


def _append_documents(tree: Any, out: bytearray, scratch: bytearray, *, first: bool) -> tuple[bytearray, bool]:
    """Append the tree's documents' JSON to `out`, comma-separated after the first; each document written in
    flow style (no indentation: half the bytes, which every later pass reads). Returns the scratch buffer
    (grown when a document needed more) and whether nothing was written yet."""
    root = tree.root_id()
    if tree.is_stream(root):
        node, docs = tree.first_child(root), []
        while node != ryml.NONE:
            docs.append(node)
            node = tree.next_sibling(node)
    else:
        docs = [root]
    for doc in docs:
        if tree.is_container(doc):
            tree.set_container_style(doc, ryml.FLOW_SL)
        # Written into the buffer as it is; one that is too short is told the length needed, grown, written again
        # (a pass to measure every document first cost a tenth of a second on the fleet).
        failed, length = ryml.emit_json_to_substr(tree, doc, scratch)
        if failed:
            scratch = bytearray(max(length, 2 * len(scratch), 1 << 16))
            failed, length = ryml.emit_json_to_substr(tree, doc, scratch)
            if failed:
                raise _Declined  # not what the emitter should write
        if not first:
            out += b","
        out += memoryview(scratch)[:length]
        first = False
    return scratch, first


def documents(emitted: Emitted, plain: Callable[[str], Any]) -> list[Any] | None:
    """The documents of rapidyaml's JSON, numbers read by `plain`; None when a key is set twice (or the JSON
    is not what the emitter should write): the full loader reports that with its lines."""
    try:
        text = emitted.json if not isinstance(emitted.json, memoryview) else bytes(emitted.json)
        docs = json.loads(text, object_pairs_hook=_unique, parse_int=plain, parse_float=plain,
                          parse_constant=plain)
    except (ValueError, TypeError, yaml.YAMLError, _Declined):
        return None
    return docs if emitted.stream else [docs]


def json_number(text: str) -> int:
    """The length of a number rapidyaml wrote bare, as a JSON parser's number hook; ValueError when JSON reads
    it other than YAML 1.1 does: an exponent (YAML 1.1 wants a dot and a signed exponent, else it is a
    string; all exponents are refused, the documents' path decides) or more digits than 64 bits surely hold
    (Go's YAML makes a float of an integer beyond them)."""
    if len(text.lstrip("-")) > 18 or "e" in text or "E" in text:
        raise ValueError(text)
    return len(text)


def _unusual(data: bytes, plain: Callable[[str], Any]) -> bool:
    """Whether the text has a candidate (see `_CANDIDATE`) that is real: not in a comment or a quoted or block
    scalar, and for a scalar, one that reads other than as a string where JSON would not, or a key that does."""
    pos = 0
    while (m := _CANDIDATE.search(data, pos)) is not None:
        if m.group(1) is not None:
            return True
        skip = _SKIP.match(data, m.start())
        start = skip.end() if skip else m.start()
        pos = start + 1
        if _in_text(data, start):
            continue
        if m.group(2) is not None or (m.group(3) is not None and _in_flow_mapping(data, start)):
            return True
        found = _TOKEN.match(data, start)  # always matches (maybe empty)
        token = found.group().decode() if found else ""
        is_key = token.endswith(":") or _KEY_AFTER.match(data, start + len(token)) is not None
        token = token.rstrip(":") if is_key else token
        if token.lstrip("+-")[:1] == "." and token.lstrip("+-.")[:1].isdigit():
            return True  # rapidyaml writes `.5` as `0.5`: the text the resolver sees would not be the scalar's
        try:
            value = plain(token)
        except (ValueError, yaml.YAMLError):
            return True
        if not isinstance(value, str) and (is_key or not _JSON_SCALAR.fullmatch(token)):
            return True
    return False


def _in_flow_mapping(data: bytes, pos: int) -> bool:
    """Whether the innermost flow collection open before `pos` on its line is a mapping (or none is open on
    the line: the collection started on a line above, whichever it is)."""
    depth = 0
    for i in range(pos - 1, data.rfind(b"\n", 0, pos), -1):
        ch = data[i]
        if ch in b"]}":
            depth += 1
        elif ch in b"[{":
            if depth == 0:
                return ch == 123  # {
            depth -= 1
    return True


def _in_text(data: bytes, pos: int) -> bool:
    """Whether `pos` is in a comment, a quoted scalar opened earlier on its line, or a block scalar's content
    (a line indented more than the last line before it that is indented less and ends in `|` or `>`)."""
    line_start = data.rfind(b"\n", 0, pos) + 1
    quote = 0
    prev = 32
    node = True  # at a node's start (the line's, after `: `, `- ` at a node's start, `[`, `{`, `,` in a flow)
    dash = False  # the last character was a `-` at a node's start
    flow = 0  # flow collections opened on this line and not closed
    # A quote opens a quoted scalar only after `: `, `[`, `{` or a flow's `,` here: at the line's start or
    # after `- ` the line may continue a flow collection's plain scalar, where a quote is a character.
    quotable = False
    i = line_start
    while i < pos:
        ch = data[i]
        if quote:
            if ch == quote == 39 and data[i + 1:i + 2] == b"'":
                i += 1  # '' in single quotes
            elif ch == 92 and quote == 34:
                i += 1  # an escape in double quotes
            elif ch == quote:
                quote = 0
                node = False
        elif ch in (34, 39) and quotable:  # elsewhere (`x "y`) a quote is part of a plain scalar
            quote = ch
        elif ch == 35 and prev in b" \n":
            return True  # a comment
        elif ch == 32:
            quotable = quotable or prev == 58
            node = node or prev == 58 or (prev == 45 and dash)  # `: `, or `- ` where a node starts
        else:
            dash = node and ch == 45
            if ch in b"[{" and node:
                flow += 1
            elif ch in b"]}" and flow:
                flow -= 1
            node = (ch in b"[{" and node) or (ch == 44 and flow > 0)  # `,` ends a flow entry only
            quotable = node and ch != 45
        prev = ch
        i += 1
    if quote:
        return True
    indent = len(data[line_start:pos]) - len(data[line_start:pos].lstrip(b" "))
    end = line_start - 1
    while end > 0:
        begin = data.rfind(b"\n", 0, end) + 1
        line = data[begin:end]
        stripped = line.lstrip(b" ")
        if stripped and not stripped.startswith(b"#") and len(line) - len(stripped) < indent:
            return b"#" not in line and _BLOCK_HEADER.search(line) is not None
        end = begin - 1
    return False


def _libyaml_accepts(data: bytes, shapes: bytes | None = None) -> bool:
    """Whether libyaml (the full loader's parser) parses the text without a syntax error: rapidyaml reads some
    malformed texts (a `]` starting a plain scalar, a line indented between a sequence entry's dash and its
    content) that libyaml refuses. Its events are counted in C, never built (~1 s per 100 MB); when the shape of
    each document keeps libyaml's verdict, only the distinct shapes are parsed (a fleet's thousands of slices
    have a few dozen). `shapes`: the text's `distinct_shapes`, when the caller has them."""
    if not _shape_keeps_verdict(data):
        return _libyaml_parses(data)
    return _libyaml_parses(shapes if shapes is not None else distinct_shapes(data))


def _libyaml_parses(data: bytes) -> bool:
    if _CParser is None:
        return False
    parser = _CParser(data)
    try:
        parser.raw_parse()
    except yaml.YAMLError:
        return False
    finally:
        parser.dispose()
    return True


# A document's shape: every letter and digit made `a`. libyaml's scanner treats them alike (names of anchors and
# tags are alphanumeric) but in escapes (`\n`, `\x41`), block scalars' indentation digits, directives and a tag's
# `%XX` (which must be UTF-8): a text with none of these has the verdict of its shape, and a stream is accepted
# when each of its documents is (a `---` line ends any scalar or collection before it: a document's errors are its
# own). The property tests compare this with a parse of the whole text.
_SHAPE = bytes.maketrans(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", b"a" * 62)
_INDENTATION_DIGIT = re2.compile(rb"[|>][-+]?[0-9]")


def _shape_keeps_verdict(data: bytes) -> bool:
    """Whether the text has no escape, block scalar indentation digit, directive or `%` with a `!` (a tag's `%XX`
    must be UTF-8, so its value counts): memchr first, most texts have none of these characters."""
    if b"\\" in data or (b"%" in data and (b"!" in data or data.startswith(b"%") or b"\n%" in data)):
        return False
    return not ((b"|" in data or b">" in data) and _INDENTATION_DIGIT.search(data))


def distinct_shapes(data: bytes) -> bytes:
    """The distinct shapes of the text's documents (each from its `---` line to the next), in their order (the
    first may be a bare document, which only the stream's start may hold). Every line of the text is in it with
    its spaces and indicators: the depth guard's search for deep indentation reads it instead of the text."""
    shapes: dict[bytes, None] = {}
    start = 0
    while start < len(data):
        end = _next_marker(data, start + 1)
        shapes[data[start:end].translate(_SHAPE)] = None
        start = end
    return b"".join(shapes)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise _Declined  # a key set twice: the full loader reports it with its lines
    return mapping


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """rapidyaml prints a parse error to file descriptor 2 before raising it; the library never prints, and the
    full loader reports the error again, so the descriptor points at the null device meanwhile (one thread at
    a time: two would each save the other's null device and restore it)."""
    with _STDERR_LOCK:
        try:
            saved = os.dup(2)
        except OSError:
            yield  # no standard error to protect
            return
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, 2)
            finally:
                os.close(null)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
