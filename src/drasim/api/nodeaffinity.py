"""Node selector matching as `component-helpers/scheduling/corev1/nodeaffinity` does it."""

from __future__ import annotations

from drasim.api.core import Node
from drasim.api.meta import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm


class NodeSelectorError(ValueError):
    """A node selector that cannot be parsed (bad operator, wrong number of values, bad field key)."""


def _check_label_requirement(req: NodeSelectorRequirement) -> None:
    op, values = req.operator, req.values
    if op in ("In", "NotIn"):
        if not values:
            raise NodeSelectorError(f"{req.key}: for 'in', 'notin' operators, values set can't be empty")
    elif op in ("Exists", "DoesNotExist"):
        if values:
            raise NodeSelectorError(f"{req.key}: values set must be empty for exists and does not exist")
    elif op in ("Gt", "Lt"):
        if len(values) != 1:
            raise NodeSelectorError(f"{req.key}: for 'Gt', 'Lt' operators, exactly one value is required")
        try:
            int(values[0])
        except ValueError:
            raise NodeSelectorError(
                f"{req.key}: for 'Gt', 'Lt' operators, the value must be an integer") from None
    else:
        raise NodeSelectorError(f"{op!r} is not a valid label selector operator")


def _label_matches(req: NodeSelectorRequirement, labels: dict[str, str]) -> bool:
    op = req.operator
    present = req.key in labels
    if op == "In":
        return present and labels[req.key] in req.values
    if op == "NotIn":
        return not present or labels[req.key] not in req.values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    # Gt / Lt: the label must parse as an integer.
    if not present:
        return False
    try:
        have = int(labels[req.key])
    except ValueError:
        return False
    want = int(req.values[0])
    return have > want if op == "Gt" else have < want


def _field_matches(req: NodeSelectorRequirement, node_name: str) -> bool:
    if req.key != "metadata.name":
        raise NodeSelectorError(f"{req.key!r} is not a valid field selector key")
    if req.operator not in ("In", "NotIn") or len(req.values) != 1:
        raise NodeSelectorError(
            f"{req.key}: field selectors support operators In and NotIn with exactly one value")
    if req.operator == "In":
        return node_name == req.values[0]
    return node_name != req.values[0]


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """One term: every requirement must match; an empty term matches nothing (upstream rule)."""
    if not term.match_expressions and not term.match_fields:
        return False
    for req in term.match_expressions:
        _check_label_requirement(req)
    labels = node.metadata.labels
    name = node.metadata.name
    return all(_label_matches(r, labels) for r in term.match_expressions) and all(
        _field_matches(r, name) for r in term.match_fields)


def selector_matches(selector: NodeSelector, node: Node) -> bool:
    """Terms are ORed. Raises NodeSelectorError for a malformed selector."""
    matched = False
    for term in selector.node_selector_terms:
        # Parse every term (upstream validates the whole selector before matching).
        if term_matches(term, node):
            matched = True
    return matched


def node_matches(node: Node, node_name: str | None, all_nodes: bool | None,
                 node_selector: NodeSelector | None) -> bool:
    """Upstream `NodeMatches`: nodeName equality, else allNodes, else the selector, else no match."""
    if node_name:
        return node.metadata.name == node_name
    if all_nodes:
        return True
    if node_selector is not None:
        return selector_matches(node_selector, node)
    return False
