"""YAML 1.1 scalars as Kubernetes' YAML reading (sigs.k8s.io/yaml) has them: PyYAML's safe loader, Go's numbers."""

from __future__ import annotations

import re
from typing import Any

import yaml

__all__ = ["MAP", "SEQ", "STR", "BaseLoader", "Loader", "plain_scalar"]

BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class Loader(BaseLoader):
    """The safe loader, with timestamps left as strings: Kubernetes converts YAML to JSON, where a time is
    a string, and the typed decoder parses it where the schema has a time (and keeps it where it has none)."""


Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_constructor(_TIMESTAMP, yaml.SafeLoader.construct_yaml_str)
_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
STR, SEQ, MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_PLAIN_TAGS: dict[str, str] = {}  # plain scalar text -> implicit tag
_MAX_PLAIN_TAGS = 100_000


def _resolve(self: Any, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
    """BaseResolver.resolve with the plain scalars' answers memoised: the loader has no path resolvers, so
    the tag of a scalar depends only on its text and style (any but plain is a string), and manifests
    repeat the same scalars many times. The C composer calls this for every node (3 million calls on a
    5,000-node fleet), so it is kept short (an lru_cache measured no faster: it builds a key per call)."""
    if kind is _ScalarNode:
        if not implicit[0]:
            return STR
        tag = _PLAIN_TAGS.get(value)
        if tag is None:
            tag = BaseLoader.resolve(self, kind, value, implicit)
            if len(_PLAIN_TAGS) < _MAX_PLAIN_TAGS and len(value) < 256:
                _PLAIN_TAGS[value] = tag
        return tag
    return SEQ if kind is _SequenceNode else MAP


Loader.resolve = _resolve
# The composer also calls these around every node, for path resolvers, which are not used. Builtins that
# take the same arguments and change nothing cost less than a Python function: slice(parent, index)
# builds a slice that is dropped, tuple() returns the empty tuple.
Loader.descend_resolver = slice
Loader.ascend_resolver = tuple

# Go's YAML (sigs.k8s.io/yaml) reads an integer beyond int64/uint64 as a float, and a number beyond float64 as
# a string; PyYAML would build a Python int of any size (and fail past 4,300 digits) or inf.
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INT_RANGE = (-(1 << 63), (1 << 64) - 1)


def _go_number(plain: str, value: Any) -> Any:
    """What Go's YAML makes of a number Python read as `value` (None: too long to convert)."""
    if value is not None and _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        return value
    digits = plain.replace("_", "")
    if _GO_FLOAT.fullmatch(digits) and len(digits) < 400:
        as_float = float(digits)
        if as_float not in (float("inf"), float("-inf")):
            return as_float
    return plain


def _construct_int(loader: Any, node: yaml.ScalarNode) -> Any:
    if len(node.value) > 40:  # beyond any 64-bit integer in any base YAML 1.1 allows: never converted
        return _go_number(node.value, None)
    return _go_number(node.value, yaml.SafeLoader.construct_yaml_int(loader, node))


def _construct_float(loader: Any, node: yaml.ScalarNode) -> Any:
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if value in (float("inf"), float("-inf")) and node.value.lstrip("+-").lower() not in (".inf",):
        return node.value  # `1e999999`: out of float64 range, a string in Go (a quantity may still read it)
    return value


Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_SCALARS = Loader("")  # resolves and builds the fast reader's plain scalars


def plain_scalar(text: str) -> Any:
    """The loader's value of the plain scalar `text` (ValueError: one only the full constructor builds)."""
    tag = _resolve(_SCALARS, _ScalarNode, text, (True, False))
    if tag == STR:
        return text
    ctor = Loader.yaml_constructors.get(tag)
    if ctor is None:
        raise ValueError(f"no constructor for {tag}")
    return ctor(_SCALARS, _ScalarNode(tag, text))


