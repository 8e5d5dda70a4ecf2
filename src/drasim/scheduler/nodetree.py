"""The scan order of nodes (the node tree, zones interleaved) and how many feasible nodes a cycle looks for."""

from __future__ import annotations

from drasim.api.core import Node

MIN_FEASIBLE = 100
BASE_PERCENTAGE = 50
MIN_PERCENTAGE = 5


def num_feasible_nodes_to_find(num_nodes: int, percentage: int = 0) -> int:
    """numFeasibleNodesToFind (scheduler-core §6)."""
    if num_nodes < MIN_FEASIBLE or percentage >= 100:
        return num_nodes
    pct = percentage
    if pct <= 0:
        pct = max(BASE_PERCENTAGE - num_nodes // 125, MIN_PERCENTAGE)
    return max(num_nodes * pct // 100, MIN_FEASIBLE)


def zone_key(node: Node) -> str:
    """utilnode.GetZoneKey: region and zone labels (stable, else the beta ones)."""
    labels = node.metadata.labels
    zone = labels.get("topology.kubernetes.io/zone", labels.get("failure-domain.beta.kubernetes.io/zone", ""))
    region = labels.get("topology.kubernetes.io/region",
                        labels.get("failure-domain.beta.kubernetes.io/region", ""))
    return "" if not region and not zone else f"{region}:\x00:{zone}"


def node_tree_order(nodes: dict[str, Node]) -> list[str]:
    """The snapshot order: zones in order of first appearance, interleaved round-robin."""
    zones: dict[str, list[str]] = {}
    for name, node in nodes.items():
        zones.setdefault(zone_key(node), []).append(name)
    if len(zones) <= 1:
        return list(nodes)
    lists = list(zones.values())
    out: list[str] = []
    for i in range(max(len(z) for z in lists)):
        out.extend(z[i] for z in lists if i < len(z))
    return out
